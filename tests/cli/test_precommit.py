"""The pre-commit hook (.pre-commit-hooks.yaml), run by pre-commit itself with `pre-commit try-repo` in a test
repository: pre-commit builds irpool from this checkout in an environment of its own (from the package
registry, with the onnx package the hook names), passes it the XML and ONNX files, and fails on a wrong IR file
and on an ONNX model whose declared pooling output onnxruntime does not compute; XML that is not IR is skipped."""
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

pytestmark = [pytest.mark.spec]

ROOT = pathlib.Path(__file__).parent.parent.parent
EXAMPLES = ROOT / "examples"

pytest.importorskip("pre_commit")
P = pytest.importorskip("onnxpeers")


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                            GIT_COMMITTER_EMAIL="t@t"))


@pytest.mark.slow      # (pre-commit builds the hook's environment: 27-34 s, the longest test of README's command)
@pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git")
def test_the_hook_fails_a_wrong_ir_file_and_skips_other_xml(tmp_path):
    if not (ROOT / ".git").exists():
        pytest.skip("try-repo needs this checkout to be a git repository")
    repo = tmp_path / "repo"
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    shutil.copy(EXAMPLES / "small_net.xml", repo / "good.xml")
    shutil.copy(EXAMPLES / "seed_maxpool_same_upper.xml", repo / "wrong.xml")
    (repo / "pom.xml").write_text("<project><modelVersion>4.0.0</modelVersion></project>\n")
    # MaxPool k2 s2 on a length of 17: onnxruntime's kernel computes 8, the model declares 9
    m = P.model("MaxPool", 12, dict(kernel_shape=[2], strides=[2]), [1, 1, 17], declared=[1, 1, 9])
    assert P.ort_kernel(m, np.zeros((1, 1, 17), np.float32))[0].shape == (1, 1, 8)
    (repo / "wrong.onnx").write_bytes(m.SerializeToString())
    _git("add", ".", cwd=repo)
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "cache"), PRE_COMMIT_COLOR="never")
    env.pop("PYTHONPATH", None)

    def hook():
        return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "irpool", "--all-files",
                               "--verbose"], cwd=repo, env=env, capture_output=True, text=True, timeout=900)
    r = hook()
    said = r.stdout + r.stderr
    assert r.returncode == 1, said
    assert "wrong.xml:16: error: [shape-mismatch]" in said and "Failed" in said, said
    assert "wrong.onnx: error: [shape-mismatch]" in said and "declared 9" in said, said
    assert "4 files: 1 ok, 2 with findings that fail, 0 unreadable, 1 skipped" in said  # pom.xml: skipped
    assert "good.xml" not in said                                                     # -q
    (repo / "wrong.xml").unlink()
    (repo / "wrong.onnx").unlink()
    _git("add", "-A", ".", cwd=repo)
    r = hook()
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Passed" in r.stdout
