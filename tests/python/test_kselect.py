"""Tests of the Python module `kselect` (python/kselect_module.cpp).

ctest runs them with PYTHONPATH at build/python and KSELECT_CLI at the built kselect binary
(tests/CMakeLists.txt); by hand:
    PYTHONPATH=build/python KSELECT_CLI=build/kselect /usr/bin/python3 -m pytest tests/python
"""
import os
import subprocess

import pytest

import kselect

GEMM = "m=64,n=64,k=64,layout=rcr,dtype=fp32"


@pytest.fixture(scope="module")
def selector():
    return kselect.Selector(op="gemm", strategy="default")


def test_default_strategy_selects_a_kernel_of_the_catalogue(selector):
    assert selector.op == "gemm"
    assert not selector.has_model
    s = selector.select(GEMM)
    assert s["kernel"] in selector.kernels
    assert selector.kernels[s["kernel_index"]] == s["kernel"]
    assert s["level"] == "default"
    assert s["decided_by"] == "default"
    # A Problem object gives the same decision, now from the cache.
    p = selector.problem(GEMM)
    assert p.text == GEMM
    again = selector.select(p)
    assert again["kernel"] == s["kernel"]
    assert again["level"] == "cache"


def test_rank_explain_and_counters(selector):
    ranked = selector.rank(GEMM, top=3)
    assert 1 <= len(ranked) <= 3
    assert all(isinstance(r["kernel"], str) for r in ranked)
    explained = selector.explain(GEMM)
    assert isinstance(explained, dict)
    assert isinstance(selector.explain(GEMM, json=False), str)
    counters = selector.counters()
    assert counters["selects"] >= 1
    assert set(counters) >= {"cache_hits", "cache_misses", "model_fallbacks"}


def test_bad_input_raises_with_the_message(selector):
    with pytest.raises(ValueError, match="m"):
        selector.problem("m=-1,n=2,k=3,layout=rcr,dtype=fp32")
    with pytest.raises(kselect.InputError):
        selector.select("m=1,n=1,k=1,layout=nope,dtype=fp32")
    with pytest.raises(ValueError, match="strategy"):
        kselect.Selector(op="gemm", strategy="nope")
    with pytest.raises(TypeError):
        kselect.Selector(op="gemm", no_such_option=1)


def test_missing_model_required_is_an_error():
    with pytest.raises((ValueError, OSError)):
        kselect.Selector(model="/nonexistent/model", op="gemm", require_model=True)


def test_read_store_rows_from_a_bench_sweep(tmp_path):
    cli = os.environ.get("KSELECT_CLI")
    if not cli:
        pytest.skip("KSELECT_CLI (the built kselect binary) is not set")
    shapes = tmp_path / "shapes.csv"
    shapes.write_text("m,n,k,layout,dtype,split_k\n32,48,16,rcr,fp32,1\n")
    db = tmp_path / "sweep.sqlite"
    subprocess.run([cli, "bench", "--rules", "tests", "--shapes", str(shapes), "--db", str(db),
                    "--threads", "1", "--warmup", "1", "--repeat", "2", "--no-progress"],
                   check=True, capture_output=True)
    rows = kselect.read_store(str(db))
    assert rows, "the sweep stored no measurement"
    assert kselect.read_store(str(db), op="gemm") == rows
    assert kselect.read_store(str(db), op="conv") == []
    row = rows[0]
    assert row["op"] == "gemm"
    assert (row["m"], row["n"], row["k"], row["layout"], row["dtype"]) == (32, 48, 16, "rcr", "fp32")
    assert {"kernel", "valid", "median_ms", "min_ms", "tflops", "run_id"} <= set(row)
    valid = kselect.read_store(str(db), valid_only=True)
    assert valid and all(r["valid"] and r["median_ms"] > 0 and r["tflops"] > 0 for r in valid)
    with pytest.raises(OSError, match="nonexistent"):
        kselect.read_store(str(tmp_path / "nonexistent.sqlite"))
