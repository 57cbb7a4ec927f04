"""Bad and unusual inputs of the own-data commands, each kept as a case (issue 29): a small input
written by numpy, pandas or as plain text, the command, and what it must do. Either exit 0 with
an answer (--out, read back by pandas) equal to what pandas computes from the same input files,
and --verify agreeing; or exit 2 (3: the machine cannot run it) with one line on stderr that names
the file and its row or line, or the option, writing nothing and leaving every input as it was.

The cases run the CPU algorithms (`--algo cpu`; ctest: Python.own_data_inputs); the GPU cases
(Python.own_data_inputs_gpu) read the same files through the GPU algorithms and are reported
skipped without a GPU. `--gpus` (across GPU servers): its refusals run everywhere, as does
AcrossServersErrors (the same input error with and without --gpus); its answers on a GPU
(gpu_servers_*: 3 servers, sharing the host's GPUs where it has fewer). README.md, "Your own data", says what is read and what is refused.
HASHLAB_BINARY_DIR names the build."""
import io
import os
import subprocess
import tempfile
import unittest

import numpy as np

try:
    import pandas as pd
except ModuleNotFoundError as e:  # make deps installs pandas; without it this check cannot run
    raise SystemExit("Python.own_data_inputs needs pandas (run `make deps`): " + str(e))

BINARY = os.path.abspath(os.path.join(os.environ.get("HASHLAB_BINARY_DIR", "build"), "hashlab"))


# ---- files -----------------------------------------------------------------------------------

def npy(array, version=None):
    """The bytes np.save writes for `array` (a format version, if given)."""
    out = io.BytesIO()
    if version is None:
        np.save(out, array, allow_pickle=True)
    else:
        np.lib.format.write_array(out, array, version=version)
    return out.getvalue()


def raw_npy(header, data):
    """A .npy file written by hand: a version 1.0 header dict and the data bytes."""
    text = header
    while (10 + len(text) + 1) % 64:
        text += " "
    text += "\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode("latin1") + data


K = np.array([3, 1, 3, 2, 1, 3], dtype=np.uint32)          # keys: three groups
V = np.array([10, -4, 7, 0, 25, -1], dtype=np.int64)         # values
VF = np.array([1.5, 0.25, -2.0, 8.0, 0.5, 3.75])              # reals, exact in float16 too


def keys_and(values_name, values):
    return {"k.npy": npy(K), values_name: npy(values)}


# ---- what pandas computes --------------------------------------------------------------------

def pandas_column(d, source):
    """The column a source names, as pandas and numpy read it: (name, values)."""
    if ".csv:" in source:
        path, column = source.split(".csv:", 1)
        path += ".csv"
    elif source.endswith(".csv"):
        path, column = source, None
    else:
        a = np.load(os.path.join(d, source))
        if a.dtype.byteorder == ">":  # the same values in the machine's order (older pandas refuse big-endian)
            a = a.astype(a.dtype.newbyteorder("="))
        return os.path.splitext(os.path.basename(source))[0], pd.Series(a)
    df = pd.read_csv(os.path.join(d, path))
    column = df.columns[0] if column is None else column
    return column, df[column]


def groupby_oracle(keys, values, aggs):
    def expected(d):
        kc = [pandas_column(d, k) for k in keys]
        vc = [pandas_column(d, v) for v in values]
        df = pd.DataFrame({f"c{i}": s.to_numpy() for i, (_, s) in enumerate(kc + vc)})
        g = df.groupby([f"c{i}" for i in range(len(kc))], sort=True)
        out = pd.DataFrame(index=g.size().index)
        rtol = {}
        for j, (name, series) in enumerate(vc):
            for a in aggs:
                out[f"{a}_{name}"] = g[f"c{len(kc) + j}"].agg(a)
                # pandas aggregates float16 and float32 columns in their own precision; the
                # commands in float64: equal to that precision.
                if series.dtype.kind == "f" and series.dtype.itemsize < 8:
                    rtol[f"{a}_{name}"] = 4 * float(np.finfo(series.dtype).eps)
        out = out.reset_index()
        out.columns = [n for n, _ in kc] + list(out.columns[len(kc):])
        out.attrs["rtol"] = rtol
        return out
    return expected


def join_oracle(rk, sk, rv=None, sv=None):
    def expected(d):
        _, r = pandas_column(d, rk)
        _, s = pandas_column(d, sk)
        rn, rvals = pandas_column(d, rv) if rv else ("r_row", pd.Series(np.arange(len(r))))
        sn, svals = pandas_column(d, sv) if sv else ("s_row", pd.Series(np.arange(len(s))))
        if rn == sn or "key" in (rn, sn):
            rn, sn = "r_" + rn, "s_" + sn
        left = pd.DataFrame({"key": r.to_numpy(), rn: rvals.to_numpy()})
        right = pd.DataFrame({"key": s.to_numpy(), sn: svals.to_numpy()})
        return left.merge(right, on="key").sort_values("key").reset_index(drop=True)
    return expected


def table_oracle(build, probe, values=None):
    def expected(d):
        _, keys = pandas_column(d, build)
        _, queries = pandas_column(d, probe)
        vals = pandas_column(d, values)[1] if values else pd.Series(np.arange(len(keys)))
        per_key = pd.DataFrame({"key": keys.to_numpy(), "v": vals.to_numpy()}).groupby("key")["v"].agg(["size", "min"])
        found = per_key.reindex(queries.to_numpy()).fillna(0).astype(np.int64)
        return pd.DataFrame({"count": found["size"].to_numpy(), "value": found["min"].to_numpy()})
    return expected


# ---- the cases -------------------------------------------------------------------------------

class Case:
    """files: name -> bytes; args: the command line (run in the files' folder); either `oracle`
    (exit 0, --out equal to it) or `error` (the words stderr must hold; exit `status`)."""

    def __init__(self, name, files, args, oracle=None, error=None, status=2, gpu=False, env=None, setup=None,
                 not_as_root=False):
        self.name, self.files, self.args = name, files, args
        self.oracle, self.error, self.status, self.gpu = oracle, error, status, gpu
        self.env, self.setup = env or {}, setup
        self.not_as_root = not_as_root  # file permissions do not bind root


CASES = []


def ok(name, files, args, oracle, **kw):
    CASES.append(Case(name, files, args, oracle=oracle, **kw))


def bad(name, files, args, *words, **kw):
    CASES.append(Case(name, files, args, error=list(words), **kw))


def groupby(keys, values, aggs="sum", algo="cpu", out="out.csv", extra=()):
    keys, values = ([keys] if isinstance(keys, str) else keys), ([values] if isinstance(values, str) else values)
    timing = [w for o, v in (("--reps", "1"), ("--warmup", "0")) if o not in extra for w in (o, v)]
    return ["groupby", "--algo", algo, "--keys", *keys, "--values", *values, "--agg", aggs, *timing,
            *(["--out", out] if out else []), *extra]


def gb_ok(name, files, keys, values, aggs="sum", out="out.csv", extra=(), algo="cpu", **kw):
    k = [keys] if isinstance(keys, str) else keys
    v = [values] if isinstance(values, str) else values
    ok(name, files, groupby(k, v, aggs, algo, out, extra) + ["--verify"], groupby_oracle(k, v, aggs.split(",")), **kw)


def gb_bad(name, files, keys, values, *words, aggs="sum", extra=(), **kw):
    bad(name, files, groupby(keys, values, aggs, out=None if "--out" in extra else "out.csv", extra=extra), *words, **kw)


ALL = "sum,min,max,count,mean"

# -- every integer, bool and float dtype numpy writes, in both byte orders ---------------------
for dt in ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", ">u2", ">i4", ">u4", ">i8", ">u8"]:
    gb_ok(f"npy_keys_{dt.replace('>', 'be_')}", {"k.npy": npy(K.astype(dt)), "v.npy": npy(V)}, "k.npy", "v.npy", ALL)
gb_ok("npy_keys_bool", {"k.npy": npy(K % 2 == 1), "v.npy": npy(V)}, "k.npy", "v.npy", ALL)
for dt in ["i1", "i2", "i4", "i8", ">i2", ">i8"]:
    gb_ok(f"npy_values_{dt.replace('>', 'be_')}", keys_and("v.npy", V.astype(dt)), "k.npy", "v.npy", ALL)
for dt in ["u1", "u2", "u4", "u8", ">u4"]:
    gb_ok(f"npy_values_{dt.replace('>', 'be_')}", keys_and("v.npy", np.abs(V).astype(dt)), "k.npy", "v.npy", ALL)
gb_ok("npy_values_bool", keys_and("v.npy", V > 0), "k.npy", "v.npy", ALL)
for dt in ["f2", "f4", "f8", ">f2", ">f4", ">f8"]:
    gb_ok(f"npy_values_{dt.replace('>', 'be_')}", keys_and("v.npy", VF.astype(dt)), "k.npy", "v.npy", ALL)
gb_ok("npy_values_int64_beyond_2p53_exact", keys_and("v.npy", np.array([2**53 + 1, 3, 2**60 + 7, 1, 5, 2**53 + 3], np.int64)),
      "k.npy", "v.npy", "sum,min,max")
gb_ok("npy_version_2", {"k.npy": npy(K, (2, 0)), "v.npy": npy(V, (2, 0))}, "k.npy", "v.npy")
gb_ok("npy_version_3", {"k.npy": npy(K, (3, 0)), "v.npy": npy(V, (3, 0))}, "k.npy", "v.npy")
gb_ok("npy_fortran_order_1d", {"k.npy": raw_npy("{'descr': '<u4', 'fortran_order': True, 'shape': (6,), }", K.tobytes()),
                               "v.npy": npy(V)}, "k.npy", "v.npy")
gb_ok("npy_values_uint64_at_int64_max", keys_and("v.npy", np.array([2**63 - 1, 0, 0, 0, 0, 0], np.uint64)),
      "k.npy", "v.npy", "min,max,count")

gb_bad("npy_keys_float64", keys_and("f.npy", VF), "f.npy", "k.npy", "f.npy", "keys must be integers", "float64")
gb_bad("npy_keys_float16", {"f.npy": npy(VF.astype("f2")), "v.npy": npy(V)}, "f.npy", "v.npy", "f.npy", "float16")
gb_bad("npy_keys_negative_int8", {"k.npy": npy(np.array([1, -3, 2], "i1")), "v.npy": npy(V[:3])}, "k.npy", "v.npy",
       "k.npy", "row 1", "-3")
gb_bad("npy_keys_beyond_2p32", {"k.npy": npy(np.array([1, 2**32], "i8")), "v.npy": npy(V[:2])}, "k.npy", "v.npy",
       "k.npy", "row 1", "4294967296")
gb_bad("npy_keys_uint64_beyond_int64", {"k.npy": npy(np.array([1, 2**63 + 1], "u8")), "v.npy": npy(V[:2])}, "k.npy",
       "v.npy", "k.npy", "row 1", "9223372036854775809")
gb_bad("npy_values_uint64_beyond_int64", keys_and("v.npy", np.array([1, 2, 2**63, 4, 5, 6], np.uint64)), "k.npy", "v.npy",
       "v.npy", "row 2", "9223372036854775808")
gb_bad("npy_values_nan", keys_and("v.npy", np.array([1, 2, np.nan, 4, 5, 6])), "k.npy", "v.npy", "v.npy", "row 2", "NaN")
gb_bad("npy_values_inf", keys_and("v.npy", np.array([1, np.inf, 3, 4, 5, 6])), "k.npy", "v.npy", "v.npy", "row 1", "infinite")
gb_bad("npy_values_minus_inf_float32", keys_and("v.npy", np.array([1, 2, 3, 4, 5, -np.inf], "f4")), "k.npy", "v.npy",
       "v.npy", "row 5", "infinite")
gb_bad("npy_values_nan_float16", keys_and("v.npy", np.array([np.nan, 2, 3, 4, 5, 6], "f2")), "k.npy", "v.npy", "v.npy",
       "row 0", "NaN")
gb_bad("npy_values_longdouble", keys_and("v.npy", VF.astype(np.longdouble)), "k.npy", "v.npy", "v.npy", "dtype")
gb_bad("npy_values_complex", keys_and("v.npy", VF.astype(np.complex128)), "k.npy", "v.npy", "v.npy", "complex")
gb_bad("npy_values_object", keys_and("v.npy", np.array([1, "a", None, 4, 5, 6], dtype=object)), "k.npy", "v.npy",
       "v.npy", "Python objects")
gb_bad("npy_values_unicode", keys_and("v.npy", np.array(["a", "b", "c", "d", "e", "f"])), "k.npy", "v.npy", "v.npy",
       "strings", "to_npy.py")
gb_bad("npy_values_bytes", keys_and("v.npy", np.array([b"a", b"b", b"c", b"d", b"e", b"f"])), "k.npy", "v.npy", "v.npy",
       "strings")
gb_bad("npy_values_datetime", keys_and("v.npy", np.arange(6).astype("datetime64[D]")), "k.npy", "v.npy", "v.npy", "dates")
gb_bad("npy_values_timedelta", keys_and("v.npy", np.arange(6).astype("timedelta64[s]")), "k.npy", "v.npy", "v.npy", "times")
gb_bad("npy_values_void", keys_and("v.npy", np.zeros(6, dtype="V4")), "k.npy", "v.npy", "v.npy", "raw bytes")
gb_bad("npy_values_record_array", keys_and("v.npy", np.zeros(6, dtype=[("a", "<i4"), ("shape", "<f8")])), "k.npy",
       "v.npy", "v.npy", "record array")
gb_bad("npy_values_2d", keys_and("v.npy", np.zeros((6, 2))), "k.npy", "v.npy", "v.npy", "shape (6, 2)", "one-dimensional")
gb_bad("npy_values_column_vector", keys_and("v.npy", np.zeros((6, 1))), "k.npy", "v.npy", "v.npy", "shape (6, 1)", "ravel")
gb_bad("npy_values_fortran_2d", keys_and("v.npy", np.asfortranarray(np.zeros((3, 2)))), "k.npy", "v.npy", "v.npy",
       "shape (3, 2)")
gb_bad("npy_values_scalar", keys_and("v.npy", np.float64(4)), "k.npy", "v.npy", "v.npy", "shape ()")
gb_bad("npy_empty", {"k.npy": npy(np.zeros(0, "u4")), "v.npy": npy(np.zeros(0, "i8"))}, "k.npy", "v.npy", "k.npy", "no rows")
gb_bad("npy_truncated", {"k.npy": npy(K)[:-3], "v.npy": npy(V)}, "k.npy", "v.npy", "k.npy", "truncated")
gb_bad("npy_trailing_bytes", {"k.npy": npy(K) + b"\0\0\0\0", "v.npy": npy(V)}, "k.npy", "v.npy", "k.npy", "bytes of data")
gb_bad("npy_not_npy", {"k.npy": b"k\n1\n2\n", "v.npy": npy(V)}, "k.npy", "v.npy", "k.npy", "not a .npy file")
gb_bad("npy_header_only", {"k.npy": b"\x93NUMPY\x01\x00", "v.npy": npy(V)}, "k.npy", "v.npy", "k.npy")
gb_bad("npy_unequal_lengths", {"k.npy": npy(K), "v.npy": npy(V[:4])}, "k.npy", "v.npy", "v.npy", "4 rows", "k.npy")
gb_bad("npy_with_a_column_name", keys_and("v.npy", V), "k.npy", "v.npy:x", "v.npy:x", "one column")

# -- CSV text, one syntax for numbers ----------------------------------------------------------
def csv(text):
    return text.encode("utf-8")


T = "k,v\n3,10\n1,-4\n3,7\n2,0\n1,25\n"
gb_ok("csv_plain", {"t.csv": csv(T)}, "t.csv:k", "t.csv:v", ALL)
gb_ok("csv_crlf", {"t.csv": csv(T.replace("\n", "\r\n"))}, "t.csv:k", "t.csv:v", ALL)
gb_ok("csv_bom", {"t.csv": b"\xef\xbb\xbf" + csv(T)}, "t.csv:k", "t.csv:v", ALL)
gb_ok("csv_bom_crlf", {"t.csv": b"\xef\xbb\xbf" + csv(T.replace("\n", "\r\n"))}, "t.csv:k", "t.csv:v")
gb_ok("csv_no_final_newline", {"t.csv": csv(T.rstrip("\n"))}, "t.csv:k", "t.csv:v")
gb_ok("csv_trailing_blank_lines", {"t.csv": csv(T + "\n\n")}, "t.csv:k", "t.csv:v")
gb_ok("csv_single_column_files", {"k.csv": csv("k\n3\n1\n3\n"), "v.csv": csv("v\n1.5\n2\n-3\n")}, "k.csv", "v.csv", ALL)
gb_ok("csv_leading_zeros", {"t.csv": csv("k,v\n003,010\n1,-04\n3,7\n")}, "t.csv:k", "t.csv:v", ALL)
gb_ok("csv_minus_zero", {"t.csv": csv("k,v\n-0,-0\n1,-0.0\n0,2.5\n")}, "t.csv:k", "t.csv:v", ALL)
gb_ok("csv_reals_with_exponents", {"t.csv": csv("k,v\n1,1e3\n1,1E-5\n2,2.5e+16\n2,-7.25\n")}, "t.csv:k", "t.csv:v", ALL)
gb_ok("csv_integers_then_a_real", {"t.csv": csv("k,v\n1,4\n1,5\n2,6\n2,0.5\n")}, "t.csv:k", "t.csv:v", ALL)
gb_ok("csv_underflow_reads_as_zero", {"t.csv": csv("k,v\n1,1e-400\n1,2.0\n")}, "t.csv:k", "t.csv:v", "sum,min")
gb_ok("csv_subnormal", {"t.csv": csv("k,v\n1,4.9e-324\n1,2.0\n")}, "t.csv:k", "t.csv:v", "min,max")
gb_ok("csv_integers_beyond_2p53_exact", {"t.csv": csv("k,v,w\n1,9007199254740993,0.5\n1,1,1.5\n2,-9007199254740995,2\n")},
      "t.csv:k", "t.csv:v", "sum,min,max")
# The audit's case: a float column beside the integer one must not turn the integers into doubles.
gb_ok("csv_integer_column_beside_a_real_one", {"t.csv": csv("k,v,w\n1,9007199254740993,0.5\n1,2,1.5\n")},
      ["t.csv:k"], ["t.csv:v", "t.csv:w"], "sum")
gb_ok("csv_int64_extremes", {"t.csv": csv("k,v\n1,9223372036854775807\n2,-9223372036854775807\n")}, "t.csv:k", "t.csv:v",
      "min,max,count")
gb_ok("csv_duplicate_name_not_asked_for", {"t.csv": csv("k,v,v\n1,2,3\n1,4,5\n")}, "t.csv:k", "t.csv:k", "count")
gb_ok("csv_quoted_name_with_comma", {"t.csv": csv('k,"a,b"\n1,2\n1,4\n2,5\n')}, "t.csv:k", "t.csv:a,b", ALL)
gb_ok("csv_quoted_name_with_quote", {"t.csv": csv('k,"say ""hi"""\n1,2\n2,4\n')}, "t.csv:k", 't.csv:say "hi"', "sum,mean")
gb_ok("csv_name_with_colon", {"t.csv": csv("k,a:b\n1,2\n1,4\n")}, "t.csv:k", "t.csv:a:b", "sum")
gb_ok("csv_name_with_spaces", {"t.csv": csv("k, unit price \n1,2\n1,4\n")}, "t.csv:k", "t.csv: unit price ", "sum")
gb_ok("csv_name_non_ascii", {"t.csv": csv("clé,prix_€\n1,2\n1,4\n")}, "t.csv:clé", "t.csv:prix_€", "sum,max")
gb_ok("csv_out_as_npy", {"t.csv": csv(T)}, "t.csv:k", "t.csv:v", ALL, out="out.npy")

gb_bad("csv_blank_line_between_rows", {"t.csv": csv("k,v\n1,2\n\n1,3\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 3", "blank")
gb_bad("csv_header_only", {"t.csv": csv("k,v\n")}, "t.csv:k", "t.csv:v", "t.csv", "no rows")
gb_bad("csv_empty_file", {"t.csv": b""}, "t.csv:k", "t.csv:v", "t.csv", "empty file")
gb_bad("csv_plus_sign", {"t.csv": csv("k,v\n+5,1\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "'+5'")
gb_bad("csv_leading_space", {"t.csv": csv("k,v\n 5,1\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "space")
gb_bad("csv_trailing_space", {"t.csv": csv("k,v\n5,1 \n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "space")
gb_bad("csv_key_written_as_real", {"t.csv": csv("k,v\n5.0,1\n")}, "t.csv:k", "t.csv:v", "t.csv", "keys must be integers",
       "line 2", "'5.0'")
gb_bad("csv_key_with_exponent", {"t.csv": csv("k,v\n1,1\n1e3,1\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 3", "'1e3'")
gb_bad("csv_hexadecimal", {"t.csv": csv("k,v\n0x10,1\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "'0x10'", "hexadecimal")
gb_bad("csv_negative_key", {"t.csv": csv("k,v\n1,1\n-1,1\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 3", "-1")
gb_bad("csv_key_beyond_2p32", {"t.csv": csv("k,v\n4294967296,1\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "4294967296")
gb_bad("csv_integer_beyond_int64", {"t.csv": csv("k,v\n1,9223372036854775808\n")}, "t.csv:k", "t.csv:v", "t.csv",
       "line 2", "64-bit")
gb_bad("csv_key_beyond_int64", {"t.csv": csv("k,v\n99999999999999999999,1\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2")
gb_bad("csv_empty_field", {"t.csv": csv("k,v\n1,\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "empty")
gb_bad("csv_empty_key", {"t.csv": csv("k,v\n,1\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "empty")
gb_bad("csv_word", {"t.csv": csv("k,v\n1,two\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "'two'")
gb_bad("csv_trailing_garbage", {"t.csv": csv("k,v\n5abc,1\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "'5abc'")
gb_bad("csv_inf", {"t.csv": csv("k,v\n1,inf\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "'inf'")
gb_bad("csv_nan", {"t.csv": csv("k,v\n1,2\n1,nan\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 3", "'nan'")
gb_bad("csv_NaN", {"t.csv": csv("k,v\n1,NaN\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "'NaN'")
gb_bad("csv_NA", {"t.csv": csv("k,v\n1,NA\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "'NA'")
gb_bad("csv_thousands_separator", {"t.csv": csv("k,v\n1,1,000\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "1,000")
gb_bad("csv_quoted_thousands", {"t.csv": csv('k,v\n1,"1,000"\n')}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "quoted")
gb_bad("csv_quoted_number", {"t.csv": csv('k,v\n1,"5"\n')}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "quoted")
gb_bad("csv_underscore_digits", {"t.csv": csv("k,v\n1,1_000\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "'1_000'")
gb_bad("csv_bare_fraction", {"t.csv": csv("k,v\n1,.5\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "'.5'")
gb_bad("csv_bare_point", {"t.csv": csv("k,v\n1,5.\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "'5.'", "both sides")
gb_bad("csv_float_overflow", {"t.csv": csv("k,v\n1,1e999\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "float64")
gb_bad("csv_inexact_integer_among_reals", {"t.csv": csv("k,v\n1,0.5\n1,9007199254740993\n")}, "t.csv:k", "t.csv:v",
       "t.csv", "line 3", "not exact", "line 2")
gb_bad("csv_inexact_integer_before_a_real", {"t.csv": csv("k,v\n1,9007199254740993\n1,0.5\n")}, "t.csv:k", "t.csv:v",
       "t.csv", "line 2", "not exact", "line 3")
gb_bad("csv_int64_min_sum_may_overflow", {"t.csv": csv("k,v\n1,-9223372036854775808\n")}, "t.csv:k", "t.csv:v", "t.csv",
       "64-bit")
gb_bad("csv_tab_separated", {"t.csv": csv("k\tv\n1\t2\n")}, "t.csv:k", "t.csv:v", "t.csv", "no column 'k'")
gb_bad("csv_semicolon_separated", {"t.csv": csv("k;v\n1;2\n")}, "t.csv", "t.csv", "t.csv", "line 2", "'1;2'")
gb_bad("csv_more_fields_than_names", {"t.csv": csv("k,v\n1,2,3\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 2", "3 fields")
gb_bad("csv_fewer_fields_than_names", {"t.csv": csv("k,v\n1,2\n3\n")}, "t.csv:k", "t.csv:v", "t.csv", "line 3", "1 fields")
gb_bad("csv_duplicate_name_asked_for", {"t.csv": csv("k,v,v\n1,2,3\n")}, "t.csv:k", "t.csv:v", "t.csv", "'v'", "2 columns")
gb_bad("csv_numeric_header", {"t.csv": csv("5,6\n1,2\n")}, "t.csv:5", "t.csv:6", "t.csv", "line 1", "looks like data")
gb_bad("csv_no_header_name", {"t.csv": csv("k,\n1,2\n")}, "t.csv:k", "t.csv:k", "t.csv", "line 1", "column 2", "no name")
gb_bad("csv_name_not_utf8", {"t.csv": b"k,caf\xe9\n1,2\n"}, "t.csv:k", "t.csv:k", "t.csv", "UTF-8")
gb_bad("csv_utf16", {"t.csv": "k,v\n1,2\n".encode("utf-16")}, "t.csv:k", "t.csv:v", "t.csv")
gb_bad("csv_no_such_column", {"t.csv": csv(T)}, "t.csv:k", "t.csv:price", "t.csv", "no column 'price'", "'k', 'v'")
gb_bad("csv_two_columns_none_named", {"t.csv": csv(T)}, "t.csv:k", "t.csv", "t.csv", "2 columns", "t.csv:<column>")
gb_bad("csv_unclosed_quoted_name", {"t.csv": csv('k,"v\n1,2\n')}, "t.csv:k", "t.csv:v", "t.csv", "not closed")
gb_bad("csv_old_mac_line_ends", {"t.csv": csv(T.replace("\n", "\r"))}, "t.csv:k", "t.csv:v", "t.csv")
gb_bad("csv_key_column_of_reals", {"t.csv": csv("k,v\n1,2\n1.5,3\n")}, "t.csv:k", "t.csv:v", "t.csv", "keys must be integers",
       "line 3")

# -- output names, unique and safe in both formats ---------------------------------------------
gb_bad("agg_named_twice", keys_and("v.npy", V), "k.npy", "v.npy", "--agg", "sum twice", aggs="sum,sum")
gb_bad("values_named_twice", keys_and("v.npy", V), "k.npy", ["v.npy", "v.npy"], "--values", "v.npy twice")
gb_bad("keys_named_twice", keys_and("v.npy", V), ["k.npy", "k.npy"], "v.npy", "--keys", "k.npy twice")
gb_bad("two_files_one_name", {"k.npy": npy(K), "a/v.npy": npy(V), "b/v.npy": npy(V)}, "k.npy", ["a/v.npy", "b/v.npy"],
       "sum_v", "a/v.npy", "b/v.npy")
gb_bad("key_named_like_an_output", {"sum_v.npy": npy(K), "v.npy": npy(V)}, "sum_v.npy", "v.npy", "sum_v", "sum_v.npy",
       "v.npy")
for fmt in ("csv", "npy"):
    for label, stem in [("comma", "a,b"), ("quote", "it's"), ("double_quote", 'x"y'), ("accent", "prix_é"),
                        ("cjk", "价格"), ("space", "unit price"), ("backslash", "a\\b"), ("newline", "line\nbreak"),
                        ("tab", "a\tb")]:
        gb_ok(f"output_name_{label}_{fmt}", keys_and(stem + ".npy", V), "k.npy", stem + ".npy", "sum,mean",
              out="out." + fmt)
bad("file_name_not_utf8", {"k.npy": npy(K), b"v\xff.npy": npy(V)},
    groupby("k.npy", os.fsdecode(b"v\xff.npy")) + ["--verify"], "UTF-8")

# -- no output over an input -------------------------------------------------------------------
gb_bad("out_is_an_input", keys_and("v.npy", V), "k.npy", "v.npy", "--out v.npy", "input file v.npy", extra=["--out", "v.npy"])
gb_bad("out_is_an_input_by_another_path", {"k.npy": npy(K), "d/v.npy": npy(V)}, "k.npy", "d/v.npy", "input file d/v.npy",
       extra=["--out", "d/../d/v.npy"])
gb_bad("out_is_a_csv_input", {"t.csv": csv(T)}, "t.csv:k", "t.csv:v", "input file t.csv", extra=["--out", "t.csv"])
bad("out_is_a_link_to_an_input", keys_and("v.npy", V), groupby("k.npy", "v.npy", out="link.npy"), "link.npy", "v.npy",
    setup=lambda d: os.symlink("v.npy", os.path.join(d, "link.npy")))
bad("out_is_a_hard_link_to_an_input", keys_and("v.npy", V), groupby("k.npy", "v.npy", out="hard.npy"), "hard.npy",
    "same file", setup=lambda d: os.link(os.path.join(d, "v.npy"), os.path.join(d, "hard.npy")))
gb_bad("out_in_a_missing_folder", keys_and("v.npy", V), "k.npy", "v.npy", "nowhere", "does not exist",
       extra=["--out", "nowhere/out.csv"])
bad("out_is_a_folder", keys_and("v.npy", V), groupby("k.npy", "v.npy", out="dir.csv"), "dir.csv", "folder",
    setup=lambda d: os.mkdir(os.path.join(d, "dir.csv")))
gb_bad("out_of_another_type", keys_and("v.npy", V), "k.npy", "v.npy", "out.parquet", extra=["--out", "out.parquet"])
bad("out_in_a_read_only_folder", keys_and("v.npy", V), groupby("k.npy", "v.npy", out="ro/out.csv"), "ro", "not writable",
    setup=lambda d: (os.mkdir(os.path.join(d, "ro")), os.chmod(os.path.join(d, "ro"), 0o555)), not_as_root=True)
bad("unreadable_input", keys_and("v.npy", V), groupby("k.npy", "v.npy"), "v.npy", "cannot be read",
    setup=lambda d: os.chmod(os.path.join(d, "v.npy"), 0), not_as_root=True)
ok("out_replaces_another_file", {**keys_and("v.npy", V), "out.csv": b"old results\n"},
   groupby("k.npy", "v.npy") + ["--verify"], groupby_oracle(["k.npy"], ["v.npy"], ["sum"]))

# -- options that do not apply, and bad values -------------------------------------------------
KV = keys_and("v.npy", V)
for option, value in [("--sampling", "cpu"), ("--table-factor", "3"), ("--hash-load", "0.5"),
                      ("--gpu-memory-budget", "1GiB"), ("--streams", "2")]:
    gb_bad(f"option{option.replace('-', '_')}_with_cpu", KV, "k.npy", "v.npy", option, "does not apply", "--algo cpu",
           "it takes: threads", extra=[option, value])
gb_bad("option_by_name_not_taken", KV, "k.npy", "v.npy", "--option length_factor", "does not apply",
       extra=["--option", "length_factor=2"])
bad("option_threads_with_sort", KV, groupby("k.npy", "v.npy", algo="sort") + ["--threads", "2"], "--threads",
    "does not apply")
bad("option_threads_with_rapids", KV, groupby("k.npy", "v.npy", algo="rapids") + ["--threads", "0"], "--threads",
    "does not apply")
gb_bad("option_threads_negative", KV, "k.npy", "v.npy", "--threads -1", extra=["--threads", "-1"])
gb_bad("option_threads_word", KV, "k.npy", "v.npy", "threads", extra=["--threads", "all"])
gb_bad("option_reps_zero", KV, "k.npy", "v.npy", "--reps 0", extra=["--reps", "0"])
gb_bad("option_warmup_negative", KV, "k.npy", "v.npy", "--warmup -1", extra=["--warmup", "-1"])
gb_bad("option_agg_unknown", KV, "k.npy", "v.npy", "median", aggs="sum,median")
gb_bad("option_agg_trailing_comma", KV, "k.npy", "v.npy", "--agg", "empty name", aggs="sum,")
gb_bad("option_agg_empty", KV, "k.npy", "v.npy", "--agg", aggs="")
gb_bad("option_agg_with_space", KV, "k.npy", "v.npy", "--agg", "' min'", aggs="sum, min")
bad("option_algo_unknown", KV, groupby("k.npy", "v.npy", algo="nope"), "nope", "choices")
gb_bad("option_stray_word", KV, "k.npy", "v.npy", "unexpected argument 'extra'", extra=["extra"])
KU = keys_and("v.npy", np.abs(V))  # values every algorithm takes: the option is what is wrong
bad("option_table_factor_nan", KU, groupby("k.npy", "v.npy", algo="rapids") + ["--table-factor", "nan"],
    "--table-factor nan")
bad("option_table_factor_negative", KU, groupby("k.npy", "v.npy", algo="rapids") + ["--table-factor", "-2"],
    "--table-factor -2")
bad("option_hash_load_above_one", KU, groupby("k.npy", "v.npy", algo="hash") + ["--hash-load", "1.5"], "--hash-load 1.5")
bad("option_hash_load_inf", KU, groupby("k.npy", "v.npy", algo="hash") + ["--hash-load", "inf"], "--hash-load inf")
bad("option_budget_negative", KU, groupby("k.npy", "v.npy", algo="mp_ega") + ["--gpu-memory-budget", "-5"],
    "--gpu-memory-budget -5")
bad("option_streams_zero", KU, groupby("k.npy", "v.npy", algo="mp_ega") + ["--streams", "0"], "--streams 0")
bad("option_sampling_unknown", KU, groupby("k.npy", "v.npy", algo="rapids") + ["--sampling", "some"], "--sampling some")
gb_ok("option_threads_with_cpu", KV, "k.npy", "v.npy", ALL, extra=["--threads", "2"])

TB = {"b.npy": npy(np.array([5, 9, 2], np.uint32)), "q.npy": npy(np.array([9, 4, 5], np.uint32))}
table = ["table", "--build", "b.npy", "--probe", "q.npy", "--reps", "1"]
bad("table_cuckoo_functions_with_linear_probing", TB, table + ["--algo", "linear_probing", "--cuckoo-functions", "3"],
    "--cuckoo-functions", "does not apply")
bad("table_load_with_sorted_array", TB, table + ["--algo", "sorted_array", "--load", "0.5"], "--load", "does not apply")
bad("table_load_negative", TB, table + ["--algo", "cuckoo", "--load", "-1"], "--load -1")
bad("table_load_nan", TB, table + ["--algo", "hashgraph", "--load", "nan"], "--load nan")
bad("table_values_of_floats", {**TB, "v.npy": npy(np.array([1.0, 2, 3]))}, table + ["--algo", "cuckoo", "--values", "v.npy"],
    "v.npy", "values must be integers")
bad("table_out_is_the_build_file", TB, table + ["--algo", "cuckoo", "--out", "b.npy"], "input file b.npy")

# -- structure ---------------------------------------------------------------------------------
gb_bad("missing_file", KV, "k.npy", "missing.npy", "missing.npy", "no such file")
bad("a_folder_as_a_column", KV, groupby("k.npy", "d.npy"), "d.npy", "folder", setup=lambda d: os.mkdir(os.path.join(d, "d.npy")))
gb_bad("unknown_extension", {**KV, "v.txt": b"1\n"}, "k.npy", "v.txt", "v.txt", "unknown file type")
gb_bad("sum_may_exceed_int64", keys_and("v.npy", np.array([2**62] * 6, np.int64)), "k.npy", "v.npy", "v.npy", "64-bit")
gb_bad("two_key_columns_for_cpu", {**KV, "k2.npy": npy(K)}, ["k.npy", "k2.npy"], "v.npy", "one 32-bit key column")

R = np.array([5, 1, 9, 4], np.uint32)
S = np.array([9, 2, 5, 7, 4], np.uint32)
J = {"rk.npy": npy(R), "sk.npy": npy(S)}


def join(*extra, algo="cpu", out="j.csv"):
    return ["join", "--algo", algo, "--r-keys", "rk.npy", "--s-keys", "sk.npy", "--reps", "1", "--out", out, *extra]


ok("join_row_numbers", J, join("--verify"), join_oracle("rk.npy", "sk.npy"))
ok("join_values", {**J, "rv.npy": npy(R * 10), "sv.npy": npy(S.astype("u2"))},
   join("--r-values", "rv.npy", "--s-values", "sv.npy", "--verify", out="j.npy"),
   join_oracle("rk.npy", "sk.npy", "rv.npy", "sv.npy"))
ok("join_values_of_one_name", {**J, "r/v.npy": npy(R * 10), "s/v.npy": npy(S + 1)},
   join("--r-values", "r/v.npy", "--s-values", "s/v.npy", "--verify"), join_oracle("rk.npy", "sk.npy", "r/v.npy", "s/v.npy"))
ok("join_values_named_key", {**J, "key.npy": npy(R * 3)}, join("--r-values", "key.npy", "--verify", out="j.npy"),
   join_oracle("rk.npy", "sk.npy", "key.npy"))
ok("join_keys_from_csv", {"rk.npy": npy(R), "s.csv": csv("id,amount\n9,1\n2,2\n5,3\n")},
   ["join", "--algo", "cpu", "--r-keys", "rk.npy", "--s-keys", "s.csv:id", "--s-values", "s.csv:amount", "--reps", "1",
    "--out", "j.csv", "--verify"], join_oracle("rk.npy", "s.csv:id", None, "s.csv:amount"))
bad("join_repeated_key", {"rk.npy": npy(np.array([5, 1, 5], np.uint32)), "sk.npy": npy(S)}, join(), "rk.npy", "unique")
bad("join_values_of_floats", {**J, "rv.npy": npy(R * 1.5)}, join("--r-values", "rv.npy"), "rv.npy",
    "values must be integers")
bad("join_values_beyond_uint32", {**J, "rv.npy": npy(np.array([1, 2, 2**32, 3], np.int64))}, join("--r-values", "rv.npy"),
    "rv.npy", "row 2", "4294967296")
bad("join_values_unequal_length", {**J, "rv.npy": npy(R[:2])}, join("--r-values", "rv.npy"), "rv.npy", "2 rows")
bad("join_out_is_an_input", J, join(out="sk.npy"), "input file sk.npy")

# -- the host's memory, checked before reading or generating -----------------------------------
gb_bad("host_memory_too_small_for_the_columns", KV, "k.npy", "v.npy", "host memory", "HASHLAB_HOST_MEMORY_LIMIT", status=3,
       env={"HASHLAB_HOST_MEMORY_LIMIT": "64"})
bad("gen_beyond_host_memory", {}, ["gen", "--dist", "uniform", "--distinct", "1000", "--n", "6G", "--out", "keys.npy"],
    "gen --n 6G", "host memory", status=3, env={"HASHLAB_HOST_MEMORY_LIMIT": "1GiB"})
bad("host_memory_limit_unreadable", KV, groupby("k.npy", "v.npy"), "HASHLAB_HOST_MEMORY_LIMIT=lots",
    env={"HASHLAB_HOST_MEMORY_LIMIT": "lots"}, status=1)
bad("gen_negative_seed", {}, ["gen", "--dist", "unique", "--n", "10", "--seed", "-1", "--out", "keys.npy"], "--seed -1")
bad("gen_out_in_a_missing_folder", {}, ["gen", "--dist", "unique", "--n", "10", "--out", "nowhere/keys.npy"], "nowhere")
bad("gen_out_of_another_type", {}, ["gen", "--dist", "unique", "--n", "10", "--out", "keys.txt"], "keys.txt")

# -- the GPU algorithms read the same files (reported skipped without a GPU) -------------------
for algo in ["rapids", "sp_ega", "lphga", "mp_ega", "sort", "hash"]:
    extra = ["--gpu-memory-budget", "64MiB"] if algo == "mp_ega" else []
    values = np.abs(V).astype("u2") if algo != "rapids" else V.astype(">i4")
    gb_ok(f"gpu_{algo}_narrow_and_big_endian", {"k.npy": npy(K.astype(">u2")), "v.npy": npy(values)}, "k.npy", "v.npy",
          ALL, algo=algo, extra=extra, gpu=True)
    gb_ok(f"gpu_{algo}_csv_columns", {"t.csv": csv("k,v\r\n3,10\r\n1,4\r\n3,7\r\n")}, "t.csv:k", "t.csv:v", ALL, algo=algo,
          extra=extra, gpu=True, out="out.npy")
gb_ok("gpu_rapids_reals_float16", keys_and("v.npy", VF.astype("f2")), "k.npy", "v.npy", ALL, algo="rapids", gpu=True)
gb_ok("gpu_rapids_bool_keys_two_columns", {"k.npy": npy(K), "b.npy": npy(K > 1), "v.npy": npy(V.astype("i1"))},
      ["k.npy", "b.npy"], "v.npy", ALL, algo="rapids", gpu=True)
for algo in ["bsp", "sort", "hash", "hashgraph"]:
    ok(f"gpu_join_{algo}", {**J, "rv.npy": npy(R.astype(">u4"))}, join("--r-values", "rv.npy", "--verify", algo=algo),
       join_oracle("rk.npy", "sk.npy", "rv.npy"), gpu=True)
for algo in ["cuckoo", "linear_probing", "sorted_array", "hashgraph"]:
    ok(f"gpu_table_{algo}", {**TB, "v.csv": csv("v\n7\n8\n9\n")},
       table + ["--algo", algo, "--values", "v.csv", "--out", "t.npy", "--verify"], table_oracle("b.npy", "q.npy", "v.csv"),
       gpu=True)

# -- across GPU servers (--gpus): refused by its flag before anything is read; the same input
# checks as on one GPU (class AcrossServersErrors); the answers on a GPU -----------------------
SERVERS = ["--gpus", "2"]
gb_bad("gpus_with_a_cpu_group_by", KV, "k.npy", "v.npy", "--gpus", "--algo cpu", "does not run across GPU servers",
       "sp_ega", extra=SERVERS)
bad("gpus_with_mp_ega", KU, groupby("k.npy", "v.npy", algo="mp_ega", extra=SERVERS), "--gpus", "--algo mp_ega",
    "does not run across GPU servers")
for count in ["0", "-2", "two", "1.5", ""]:
    bad(f"gpus_count_{count.replace('-', 'minus_').replace('.', '_') or 'empty'}", KU,
        groupby("k.npy", "v.npy", algo="sp_ega", extra=["--gpus", count]), "--gpus")
for option, value in [("--servers-share-gpu", "yes"), ("--servers-backend", "local"), ("--pre-aggregation", "always")]:
    bad(f"option{option.replace('-', '_')}_without_gpus", KU, groupby("k.npy", "v.npy", algo="sp_ega", extra=[option, value]),
        option, "applies with --gpus")
bad("option_servers_backend_unknown", KU, groupby("k.npy", "v.npy", algo="sp_ega", extra=SERVERS + ["--servers-backend", "mpi"]),
    "--servers-backend", "'mpi'")
bad("option_servers_share_gpu_maybe", KU,
    groupby("k.npy", "v.npy", algo="sp_ega", extra=SERVERS + ["--servers-share-gpu", "maybe"]), "--servers-share-gpu", "'maybe'")
bad("option_pre_aggregation_unknown", KU,
    groupby("k.npy", "v.npy", algo="sp_ega", extra=SERVERS + ["--pre-aggregation", "sometimes"]), "--pre-aggregation",
    "'sometimes'")
for algo in ["hashgraph", "sort_join_hmap", "cpu"]:
    bad(f"join_gpus_with_{algo}", J, join(*SERVERS, algo=algo), "--gpus", f"--algo {'cpu_join' if algo == 'cpu' else algo}",
        "does not run across GPU servers", "bsp, sort_join, hash_join")
bad("join_gpus_option_trace", J, join(*SERVERS, "--option", "trace=true", algo="bsp"), "--option trace",
    "does not apply with --gpus")
bad("join_gpus_option_of_another_entry", J, join(*SERVERS, "--option", "key_domain=10", algo="bsp"), "--option key_domain",
    "does not apply")

# On a GPU: 3 servers share this host's GPUs where it has fewer (the local backend), or have one each.
SHARED = ["--gpus", "3", "--servers-share-gpu", "yes"]
_rng = np.random.default_rng(30)
KM = _rng.integers(0, 400, 5000).astype(np.uint32)
VM = _rng.integers(0, 1 << 20, 5000).astype(np.int64)
VMF = _rng.integers(-(1 << 20), 1 << 20, 5000) / 8.0
for algo in ["rapids", "sp_ega", "lphga", "sort", "hash"]:
    gb_ok(f"gpu_servers_{algo}", {"k.npy": npy(KM), "v.npy": npy(VM)}, "k.npy", "v.npy", ALL, algo=algo, extra=SHARED,
          gpu=True)
for mode in ["always", "never"]:
    gb_ok(f"gpu_servers_sort_pre_aggregation_{mode}", {"k.npy": npy(KM), "v.npy": npy(VM)}, "k.npy", "v.npy", ALL,
          algo="sort", extra=SHARED + ["--pre-aggregation", mode], gpu=True)
gb_ok("gpu_servers_rapids_reals_two_key_columns", {"k.npy": npy(KM), "b.npy": npy(KM % 3), "v.npy": npy(VMF)},
      ["k.npy", "b.npy"], "v.npy", ALL, algo="rapids", extra=SHARED, gpu=True, out="out.npy")
gb_ok("gpu_servers_one_nccl_server", {"k.npy": npy(KM), "v.npy": npy(VM)}, "k.npy", "v.npy", "sum,count", algo="sp_ega",
      extra=["--gpus", "1"], gpu=True)
RM = _rng.permutation(1 << 20)[:6000].astype(np.uint32)
SM = np.concatenate([RM[:3000], _rng.permutation(1 << 20)[:3000].astype(np.uint32) + (1 << 21)])
_rng.shuffle(SM)
JM = {"rk.npy": npy(RM), "sk.npy": npy(SM), "rv.npy": npy(RM // 3)}
for algo in ["bsp", "sort", "hash"]:
    ok(f"gpu_servers_join_{algo}", JM, join("--r-values", "rv.npy", "--verify", *SHARED, algo=algo),
       join_oracle("rk.npy", "sk.npy", "rv.npy"), gpu=True)
ok("gpu_servers_join_bsp_local_partitions", JM, join("--option", "partitions=4", "--verify", *SHARED, algo="bsp"),
   join_oracle("rk.npy", "sk.npy"), gpu=True)
ok("gpu_servers_join_one_nccl_server", JM, join("--verify", "--gpus", "1", algo="bsp"), join_oracle("rk.npy", "sk.npy"),
   gpu=True)
bad("gpu_servers_beyond_the_host", KU, groupby("k.npy", "v.npy", algo="sp_ega", extra=["--gpus", "1000"]), "--gpus 1000",
    "this host has", "--servers-share-gpu yes", status=3, gpu=True)

# ---- running them ----------------------------------------------------------------------------

def hashlab(args, cwd, env):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, cwd=cwd, timeout=300,
                          env={**os.environ, **env}, errors="replace")


def read_output(path):
    if path.endswith(".csv"):
        return pd.read_csv(path)
    return pd.DataFrame(np.load(path))


def snapshot(d, skip=()):
    files = {}
    for root, _, names in os.walk(d):
        for n in names:
            p = os.path.join(root, n)
            if os.path.relpath(p, d) not in skip and not os.path.islink(p):
                try:
                    with open(p, "rb") as f:
                        files[os.path.relpath(p, d)] = f.read()
                except PermissionError:  # a case's unreadable input: its size and time stand for it
                    files[os.path.relpath(p, d)] = (os.stat(p).st_size, os.stat(p).st_mtime_ns)
    return files


def output_of(args):
    return args[args.index("--out") + 1] if "--out" in args else None


class Inputs(unittest.TestCase):
    gpu = None

    @classmethod
    def has_gpu(cls):
        if cls.gpu is None:
            with tempfile.TemporaryDirectory() as d:
                np.save(os.path.join(d, "k.npy"), K)
                r = hashlab(["groupby", "--algo", "sort", "--keys", "k.npy", "--values", "k.npy", "--reps", "1"], d, {})
                cls.gpu = (r.returncode == 0, r.stderr.strip())
        return cls.gpu

    def run_case(self, case):
        if case.gpu and not self.has_gpu()[0]:
            self.skipTest("needs a CUDA GPU: " + self.has_gpu()[1])
        if case.not_as_root and os.geteuid() == 0:
            self.skipTest("file permissions do not bind root")
        with tempfile.TemporaryDirectory() as d:
            for name, data in case.files.items():
                path = os.path.join(os.fsencode(d), name if isinstance(name, bytes) else name.encode())
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(data)
            if case.setup:
                case.setup(d)
            out = output_of(case.args)
            existed = out is not None and os.path.lexists(os.path.join(d, out))
            before = snapshot(d)
            r = hashlab(case.args, d, case.env)
            said = f"hashlab {' '.join(case.args)}\nexit {r.returncode}\n{r.stdout}\n{r.stderr}"
            if case.oracle is not None:
                self.assertEqual(r.returncode, 0, said)
                if "--verify" in case.args:
                    self.assertIn("verify: ok", r.stdout, said)
                self.assertEqual(snapshot(d, skip={out}), {k: v for k, v in before.items() if k != out},
                                 "an input changed")
                self.assert_equal_frames(read_output(os.path.join(d, out)), case.oracle(d), said)
            else:
                self.assertEqual(r.returncode, case.status, said)
                self.assertTrue(r.stderr.startswith("hashlab: error: "), said)
                for word in case.error:
                    self.assertIn(word, r.stderr, said)
                self.assertNotIn("Aborted", r.stderr)
                self.assertEqual(snapshot(d), before, "an input or an output was written")
                if out is not None and not existed:
                    self.assertFalse(os.path.lexists(os.path.join(d, out)), said)

    def assert_equal_frames(self, got, expected, said):
        self.assertEqual(list(got.columns), list(expected.columns), said)
        self.assertEqual(len(got), len(expected), said)
        for c in expected.columns:
            g, e = got[c].to_numpy(), expected[c].to_numpy()
            if e.dtype.kind == "f" or g.dtype.kind == "f":
                # pandas' reals are reals here too; sums may differ in the last bits by their order.
                self.assertEqual((g.dtype.kind == "f"), (e.dtype.kind == "f"), f"{said}\ncolumn {c}: {g.dtype} vs {e.dtype}")
                rtol = expected.attrs.get("rtol", {}).get(c, 1e-12)
                np.testing.assert_allclose(g.astype(np.float64), e.astype(np.float64), rtol=rtol, atol=0,
                                           err_msg=f"{said}\ncolumn {c}")
            else:
                self.assertEqual([int(x) for x in g], [int(x) for x in e], f"{said}\ncolumn {c}")


for _case in CASES:
    def _test(self, case=_case):
        self.run_case(case)
    _name = ("test_gpu_" if _case.gpu else "test_cpu_") + _case.name
    assert not hasattr(Inputs, _name), "two cases named " + _name
    setattr(Inputs, _name, _test)


class AcrossServersErrors(unittest.TestCase):
    """Across servers the whole input is checked before it is split: a repeated primary key, a
    value an algorithm does not take, its empty-slot key get the same error as on one GPU (exit 2,
    the same line), whichever server the rows would go to. The input checks come before the
    machine's, so these run without a GPU too."""

    def same_error(self, files, args, *words):
        with tempfile.TemporaryDirectory() as d:
            for name, data in files.items():
                with open(os.path.join(d, name), "wb") as f:
                    f.write(data)
            one = hashlab(args, d, {})
            for servers in (["--gpus", "2"], ["--gpus", "3", "--servers-share-gpu", "yes"]):
                across = hashlab(args + servers, d, {})
                said = f"hashlab {' '.join(args + servers)}\nexit {across.returncode}\n{across.stderr}\none GPU: {one.stderr}"
                self.assertEqual(one.returncode, 2, said)
                self.assertEqual(across.returncode, 2, said)
                self.assertEqual(across.stderr, one.stderr, said)
                for word in words:
                    self.assertIn(word, across.stderr, said)

    def test_cpu_repeated_key_in_r_on_the_last_server(self):
        r = np.array([5, 1, 9, 4, 7, 11, 2, 9], np.uint32)  # rows 2 and 7: servers 0 and the last
        for algo in ["bsp", "sort_join", "hash_join"]:
            self.same_error({"rk.npy": npy(r), "sk.npy": npy(S)}, join(algo=algo), "rk.npy", "key 9", "unique")

    def test_cpu_repeated_key_in_s_within_one_server(self):
        s = np.array([9, 2, 5, 7, 4, 8, 3, 3], np.uint32)  # rows 6 and 7: both the last server's
        self.same_error({"rk.npy": npy(R), "sk.npy": npy(s)}, join(algo="bsp"), "sk.npy", "key 3", "unique")

    def test_cpu_a_value_beyond_32_bits_on_the_last_server(self):
        v = np.abs(V)
        v[-1] = 2**33
        self.same_error(keys_and("v.npy", v), groupby("k.npy", "v.npy", algo="sp_ega"), "v.npy", "row 5")

    def test_cpu_the_empty_slot_key(self):
        k = K.copy()
        k[-1] = 2**32 - 1
        self.same_error({"k.npy": npy(k), "v.npy": npy(np.abs(V))}, groupby("k.npy", "v.npy", algo="hash"), "k.npy",
                        "4294967295")
        r = R.copy()
        r[-1] = 2**32 - 1
        self.same_error({"rk.npy": npy(r), "sk.npy": npy(S)}, join(algo="hash_join"), "rk.npy", "4294967295")


class TheCorpus(unittest.TestCase):
    def test_cpu_corpus_holds_at_least_100_cases_of_each_outcome_kind(self):
        cpu = [c for c in CASES if not c.gpu]
        self.assertGreaterEqual(len(cpu), 100)
        self.assertGreaterEqual(sum(c.oracle is not None for c in cpu), 40)
        self.assertGreaterEqual(sum(c.error is not None for c in cpu), 60)


if __name__ == "__main__":
    unittest.main()
