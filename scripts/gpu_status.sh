#!/usr/bin/env bash
# Says, before the tests run, whether the GPU tests will run or be skipped.
if nvidia-smi -L >/dev/null 2>&1; then
  echo "GPU present: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1); GPU tests will run."
else
  echo "No CUDA GPU on this machine: GPU tests will be reported as skipped (ctest 'Skipped')."
fi
