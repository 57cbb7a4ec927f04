# Sourced by scripts/device_prebuilt.sh and scripts/device_run.sh (PREBUILT=dir) on a lent GPU
# machine: `use_prebuilt dir` unpacks the binaries built elsewhere for sm_90 (.devbin/bin.tar.xz)
# into dir unless dir already holds a hashlab, and points the loader at the libraries carried
# beside them (.deps for Boost, .devbin/lib for the rest).
use_prebuilt() {
  if [ ! -x "$1/hashlab" ]; then
    mkdir -p "$1" && tar xJf .devbin/bin.tar.xz -C "$1" || { echo "no .devbin/bin.tar.xz"; return 1; }
  fi
  [ -d .deps/root ] || for f in .deps/*.deb; do dpkg -x "$f" .deps/root; done
  export LD_LIBRARY_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu:$PWD/.devbin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
}
