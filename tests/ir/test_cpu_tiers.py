"""The CPU plugin's instruction-set tiers (irpool/cpu.py, schemas/openvino.json "cpu_tiers").

irpool judges for the host's tier as oneDNN sees it: the CPU's flags, capped by ONEDNN_MAX_CPU_ISA. These tests
hold that reading to oneDNN's rules as measured, show in a child process that the plugin does honour the limit
(the kernels it picks change), and run the plugin comparisons whose verdicts and bits depend on the tier again
under each limit this machine can go down to, in child processes. A tier above this machine's cannot be shown
here: that test says so and skips.

What the limit does not govern (issue 51): compile_model's default inference precision follows the CPU's own
avx512_bf16 whatever the limit (schemas/openvino.json cpu_tiers "bf16_default"), and with it whether a bf16 pool
below AVX-512 is kept in bf16 (refused) or pooled in f32 (compiled). irpool's host under a limit is the capped tier
with the CPU's own bf16_default, so the comparisons under a limit hold on a CPU with avx512_bf16 (AMD family 25
model 17, family 26 model 2: refused) and on one without (Intel family 6 model 207: compiled); what the limit
cannot show is held to the records of real CPUs (the CPU profiles below and tests/ir/test_cpu_records.py).
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import irpool
from irpool import cpu

pytestmark = [pytest.mark.openvino]

HERE = os.path.dirname(os.path.abspath(__file__))

# The plugin comparisons whose verdict or bits depend on the tier (bf16 natively or as f32, the channel block,
# the kernels a type has): every element type through every pooling op, the refusals by channels and indices,
# the layout rules, and the pooling family's types.
TIER_TESTS = ["test_ir_real.py::test_every_element_type_is_read_and_pooled_as_the_cpu_plugin_does",
              "test_ir_real.py::test_what_the_cpu_plugin_refuses_depends_on_channels_and_indices",
              "test_ir_real.py::test_empty_average_windows_equal_the_cpu_plugin",
              "test_eltypes.py", "test_family.py", "test_negative_pads.py"]

SERVER = frozenset("sse4_1 avx avx2 fma avx512f avx512bw avx512vl avx512dq avx512_vnni avx512_bf16".split())
# The records of real CPUs: ../shared/cpu-records from the repository's root (IRPOOL_CPU_RECORDS elsewhere), and ours.
RECORDS = [os.environ.get("IRPOOL_CPU_RECORDS") or os.path.join(HERE, "..", "..", "..", "shared", "cpu-records"),
           os.path.join(HERE, "..", "data", "cpu-records")]
SAPPHIRE = SERVER | {"avx_vnni", "avx512_fp16", "amx_tile", "amx_int8", "amx_bf16"}
ZEN3 = frozenset("sse4_1 avx avx2 fma".split())        # an AMD EPYC family 25 model 1: AVX2, no AVX-512


@pytest.fixture
def flags(monkeypatch):
    """Pretend the CPU has the given /proc/cpuinfo flags, with no limit set."""
    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    monkeypatch.delenv("DNNL_MAX_CPU_ISA", raising=False)

    real = cpu._flags

    def use(fl):
        monkeypatch.setattr(cpu, "_flags", lambda: frozenset(fl))
    yield use
    real.cache_clear()


@pytest.mark.parametrize("have,limit,tier", [
    (ZEN3, None, "avx2"), (ZEN3 | {"avx_vnni"}, None, "avx2-vnni"), (SERVER, None, "avx512-bf16"),
    (SERVER - {"avx512_bf16"}, None, "avx512-vnni"), (SAPPHIRE, None, "amx"), (set(), None, None),
    (SERVER, "AVX2", "avx2"), (SERVER, "avx2", "avx2"), (SERVER, "SSE41", "sse41"),
    (SERVER, "AVX512_CORE", "avx512"), (SERVER, "AVX2_VNNI_2", "avx2"), (SERVER | {"avx_vnni"}, "AVX2_VNNI_2", "avx2-vnni"),
    (SERVER, " AVX2", "avx512-bf16"), (SERVER, "AVX2x", "avx512-bf16"), (SERVER, "ALL", "avx512-bf16"),
    (ZEN3, "AVX512_CORE", "avx2"), (SAPPHIRE, "AVX512_CORE_BF16", "avx512-bf16")])
def test_the_host_tier_is_the_one_onednn_sees(flags, monkeypatch, have, limit, tier):
    """The highest tier whose flags the CPU has, within ONEDNN_MAX_CPU_ISA as oneDNN reads it (any case; a name
    it does not know is no limit: measured on OpenVINO 2026.4.1, whose plugin compiles a bf16 MaxPool-8 with its
    indices used under 'avx2' and 'AVX2', and refuses it under ' AVX2', 'AVX2x' and 'ALL' on an AVX-512 CPU)."""
    flags(have)
    if limit is not None:
        monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", limit)
    got = cpu.host()
    assert (got.name if got else None) == tier


def test_onednn_max_cpu_isa_wins_over_dnnl_max_cpu_isa(flags, monkeypatch):
    flags(SERVER)
    monkeypatch.setenv("DNNL_MAX_CPU_ISA", "SSE41")
    assert cpu.host().name == "sse41"
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX2")
    assert cpu.host().name == "avx2"


def test_what_each_tier_pools_natively():
    """precision_support.cpp: bf16 natively with avx512_core or avx2_vnni_2, f16 with avx512_core_fp16 or
    avx2_vnni_2; the emulated bf16 rounding only where neither the native conversion nor AVX-512 is."""
    native = {t.name: (t.native("bf16"), t.native("f16"), t.bf16_emulated) for t in cpu.tiers()}
    assert native["avx2"] == (False, False, True) and native["sse41"] == (False, False, True)
    assert native["avx2-vnni-2"] == (True, True, False)
    assert native["avx512"] == (True, False, False) and native["avx512-bf16"] == (True, False, False)
    assert native["avx512-fp16"] == (True, True, False) and native["amx"] == (True, True, False)
    assert all(t.native("f32") for t in cpu.tiers())


def test_the_emulated_bf16_rounding_is_the_plugins_formula():
    """jit_uni_vcvtneps2bf16's emulation, (x + ((x & 0x10000) >> 1)) >> 16, written out per element here: it
    rounds up only where the kept part is odd and the rest at least half (so not always to the nearest)."""
    rng = np.random.default_rng(3)
    bits = rng.integers(0, 1 << 32, 4096, dtype=np.uint64).astype(np.uint32)
    bits[:4] = [0x3F808000, 0x3F818000, 0x3F80FFFF, 0x7F7FFFFF]        # ties both ways, near-half, the largest
    want = [((int(b) + ((int(b) >> 1) & 0x8000)) & 0xFFFFFFFF) >> 16 for b in bits]
    got = cpu.round_bf16(bits.view(np.float32))
    assert got.tolist() == want
    assert got[:4].tolist() == [0x3F80, 0x3F82, 0x3F80, 0x7F80]


def test_a_tier_that_is_not_one_is_refused_with_the_list():
    with pytest.raises(irpool.IRError, match="avx512-bf16"):
        irpool.check("<layer/>", cpu="avx3")
    with pytest.raises(irpool.IRError, match="one CPU tier"):
        irpool.load("<layer/>", cpu="all")


def _host_limit_allows(onednn: str) -> bool:
    """Whether this machine can show tier `onednn` (its own tier includes it)."""
    host = cpu.host()
    want = next(t for t in cpu.tiers() if t.onednn == onednn)
    return host is not None and want.name in host.isas


def _child(env_limit, code):
    env = dict(os.environ, ONEDNN_MAX_CPU_ISA=env_limit)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


_KERNEL = r"""
import openvino as ov, openvino.opset1 as o1
p = o1.parameter([1, 16, 8, 8], ov.Type.f32)
m = ov.Model([o1.avg_pool(p, [2, 2], [0, 0], [0, 0], [2, 2], True)], [p])
c = ov.Core().compile_model(m, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
print(next(o.get_rt_info()["primitiveType"].astype(str) for o in c.get_runtime_model().get_ordered_ops()
           if o.get_rt_info()["layerType"].astype(str) == "Pooling"))
"""


@pytest.mark.parametrize("limit,kernel", [("SSE41", "sse4"), ("AVX2", "avx2"), ("AVX512_CORE", "avx512")])
def test_the_plugin_honours_onednn_max_cpu_isa(limit, kernel):
    """The limit reaches the plugin: its pooling kernel is the limit's (measured here: jit_sse42_f32,
    jit_avx2_f32, jit_avx512_f32 on an AMD EPYC family 26 model 2)."""
    pytest.importorskip("openvino")
    if not _host_limit_allows(limit):
        pytest.skip(f"this CPU is below {limit} (its tier: {cpu.host() and cpu.host().name}): not shown here")
    r = _child(limit, _KERNEL)
    assert r.returncode == 0, r.stderr[-2000:]
    assert kernel in r.stdout, r.stdout


SHOWN = ["AVX512_CORE", "AVX2", "SSE41"]
OTHERS = [t.onednn for t in cpu.tiers() if t.onednn not in SHOWN]


# Each limit is a child pytest of the plugin comparisons (about a minute each on 2 cores): the slow set runs them,
# and .ci/run runs every other comparison with OpenVINO under AVX2 once more besides (its AVX2 pass leaves out
# TIER_TESTS, which the AVX2 child here ran, reading this list).
@pytest.mark.slow
@pytest.mark.parametrize("limit", SHOWN + OTHERS)
def test_the_plugin_comparisons_hold_under_each_limit(limit):
    """TIER_TESTS in a child pytest with ONEDNN_MAX_CPU_ISA set: the plugin and irpool's host tier both take
    the limit, so every verdict and every bit is compared on that tier, for every limit this machine can show
    (AVX512_CORE, AVX2 and SSE41 among them: bf16 native, the AVX2 block and rounding, the lowest)."""
    pytest.importorskip("openvino")
    if not _host_limit_allows(limit):
        pytest.skip(f"this CPU's tier is {cpu.host() and cpu.host().name}: the plugin cannot show {limit} here")
    env = dict(os.environ, ONEDNN_MAX_CPU_ISA=limit)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
                        *[os.path.join(HERE, t) for t in TIER_TESTS]], capture_output=True, text=True, env=env,
                       cwd=os.path.dirname(HERE), timeout=1800)
    assert r.returncode == 0, f"under ONEDNN_MAX_CPU_ISA={limit}:\n{r.stdout[-4000:]}\n{r.stderr[-2000:]}"
    assert " passed" in r.stdout.splitlines()[-1]



_HINT = r"""
import openvino as ov, openvino.opset1 as o1
p = o1.parameter([1, 3, 4, 4], ov.Type.f32)
c = ov.Core().compile_model(ov.Model([o1.relu(p)], [p]), "CPU")
print(c.get_property("INFERENCE_PRECISION_HINT").get_type_name())
"""


@pytest.mark.parametrize("limit", [None, "AVX2", "SSE41"])
def test_the_limit_does_not_cap_the_default_inference_precision(limit):
    """config.cpp Config::readProperties: bf16 by default where the CPU has avx512_bf16, whatever ONEDNN_MAX_CPU_ISA
    says (measured on AMD family 25 model 17: bf16 under SSE41, where the kernels are jit_sse42), else f32. irpool's
    host keeps that under a limit (bf16_default)."""
    pytest.importorskip("openvino")
    if cpu.host() is None:
        pytest.skip("this machine's CPU flags cannot be read")
    env = {k: v for k, v in os.environ.items() if k not in ("ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA")}
    if limit:
        env["ONEDNN_MAX_CPU_ISA"] = limit
    r = subprocess.run([sys.executable, "-c", _HINT], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == ("bf16" if cpu.host().bf16_default else "f32"), r.stdout
    assert cpu.host().bf16_default == ("avx512_bf16" in cpu._flags())


def _bf16_avgpool(tmp_path):
    """test_ir_real.py's bf16 AvgPool-1 (2x3x6x7), the case README's tests failed on under AVX2 on Intel f6m207."""
    ov = pytest.importorskip("openvino")
    import openvino.opset1 as o1
    p = o1.parameter([2, 3, 6, 7], ov.Type.bf16, name="x")
    path = tmp_path / "bf16_avg.xml"
    ov.save_model(ov.Model([o1.avg_pool(p, [1, 1], [0, 0], [0, 0], [2, 2], True)], [p]), path, compress_to_fp16=False)
    return path


@pytest.mark.parametrize("limit", ["AVX2", "AVX", "SSE41"])
def test_a_bf16_pool_below_avx512_is_judged_by_the_cpus_own_bf16(flags, monkeypatch, tmp_path, limit):
    """Under a limit below AVX-512, a bf16 AvgPool-1 is refused on a CPU with avx512_bf16 (AMD family 25 model 17,
    family 26 model 2) and compiles on one without (Intel family 6 model 207: its record's runtime graph pools it in
    f32 under AVX2 and SSE41, and README's tests failed there when irpool said refused). The Intel flags are those of
    its record's cpu.txt where the record is here, else the profile's."""
    path = _bf16_avgpool(tmp_path)
    sys.path.insert(0, os.path.join(HERE, "..", "tools"))
    from record_plugin import folder_flags
    intel = next((f for f in (folder_flags(os.path.join(r, "intel-xeon-f6-m207")) for r in RECORDS) if f), None)
    cases = [(frozenset(cpu.profiles()["amd-epyc-zen4"]["flags"]), False),
             (intel or frozenset(cpu.profiles()["intel-xeon-f6-m207"]["flags"]), True)]
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", limit)
    for have, compiles in cases:
        flags(have)
        assert cpu.host().onednn == limit and cpu.host().bf16_default == ("avx512_bf16" in have)
        codes = {f.code for f in irpool.check(path).findings}
        assert ("bad-precision" not in codes) == compiles, (sorted(have), limit, codes)


def test_the_intel_record_shows_the_bf16_pool_pooled_in_f32_under_avx2():
    """The record itself (where it is here): under AVX2 and SSE41 the runtime graph has a Pooling in f32 and a
    conversion to bf16 after it, so the model compiled; with no limit a bf16 Pooling."""
    path = next((os.path.join(r, "intel-xeon-f6-m207", "probes", "bf16_avgpool_exec_graph.txt") for r in RECORDS
                 if os.path.exists(os.path.join(r, "intel-xeon-f6-m207", "probes", "bf16_avgpool_exec_graph.txt"))),
                None)
    if path is None:
        pytest.skip("no record of Intel family 6 model 207 here (../shared/cpu-records)")
    runs = {}
    for block in open(path, encoding="utf-8").read().split("== ONEDNN_MAX_CPU_ISA=")[1:]:
        head, *lines = block.strip().splitlines()
        runs[head.strip()] = [line.split() for line in lines]
    for limit in ("AVX2", "SSE41"):
        pooling = [row for row in runs[limit] if row[0] == "Pooling"]
        assert pooling and pooling[0][2] == "f32", runs[limit]
    assert [row for row in runs["unset"] if row[0] == "Pooling"][0][2] == "bf16"
    intel = cpu.named("intel-xeon-f6-m207")
    assert not intel.bf16_default and intel.native("bf16") and intel.name == "avx512-vnni"


@pytest.mark.parametrize("name,tier,bf16_default", [
    ("amd-zen4", "avx512-bf16", True), ("amd-epyc-zen5", "avx512-bf16", True),
    ("intel-icelake-server", "avx512-vnni", False), ("intel-xeon-f6-m207", "avx512-vnni", False),
    ("intel-xeon-amx", "amx", True), ("avx2", "avx2", False), ("avx512-bf16", "avx512-bf16", True)])
def test_cpu_names_a_tier_or_a_measured_cpu(name, tier, bf16_default):
    """--cpu takes a tier (a real CPU of that tier) or a CPU measured, by name or alias (schemas "machines"): its
    tier from its flags, and whether it infers in bf16 by default (its own avx512_bf16)."""
    with cpu.judging(name):
        got = cpu.one()
        assert (got.name, got.bf16_default) == (tier, bf16_default)
        assert cpu.selected() == cpu.choose(name)
    assert cpu.selected() == cpu.HOST


def test_two_cpus_of_one_tier_differ_by_their_profile(tmp_path):
    """Under --cpu avx2 (a real AVX2 CPU: no avx512_bf16) a bf16 AvgPool-1 compiles, as on the Intel record
    under AVX2; the host of an AMD with avx512_bf16 under the same limit refuses it (the AMD records)."""
    path = _bf16_avgpool(tmp_path)
    assert "bad-precision" not in {f.code for f in irpool.check(path, cpu="avx2").findings}
    assert "bad-precision" not in {f.code for f in irpool.check(path, cpu="intel-xeon-f6-m207").findings}


def test_cpu_all_says_which_cpus_it_judged(tmp_path):
    """issue 54 item 12: --cpu all names the tiers and the CPUs measured, in text and JSON, also where nothing in
    the file depends on the CPU."""
    import json as _json
    ov = pytest.importorskip("openvino")
    import openvino.opset1 as o1
    p = o1.parameter([1, 3, 6, 6], ov.Type.f32, name="x")
    path = tmp_path / "f32.xml"
    ov.save_model(ov.Model([o1.max_pool(p, [2, 2], [0, 0], [0, 0], [2, 2])], [p]), path)
    for fmt in ("text", "json"):
        r = subprocess.run([sys.executable, "-m", "irpool", "check", "--cpu", "all", "--format", fmt, str(path)],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        said = r.stdout if fmt == "text" else _json.loads(r.stdout)["cpu"]
        assert "sse41 to amx-fp16" in said and all(k in said for k in cpu.profiles()), said


def test_codes_cpu_dependent_names_each_rule_its_source_and_cpus():
    r = subprocess.run([sys.executable, "-m", "irpool", "codes", "cpu-dependent"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0
    for rule in cpu._table()["rules"]:
        assert rule["source"] in r.stdout and all(k in r.stdout for k in rule["seen_on"])
    assert "NOT capped by ONEDNN_MAX_CPU_ISA" in r.stdout and "Config::readProperties" in r.stdout
