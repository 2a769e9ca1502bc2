"""README's examples cannot go stale: every `$ command` of its console blocks runs (bash, from a folder
holding a copy of examples/) and prints what README shows, with the exit status its `# exit N` comment
gives (0 without one); every python block runs. `...` alone on a line stands for any lines, and a line
ending in `...` for any line that starts with the rest. docs/codes.md is what `irpool codes --markdown`
makes of schemas/codes.json, and every docs/ link of README names a file that exists."""
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from irpool.codes import markdown

pytestmark = [pytest.mark.spec]

ROOT = pathlib.Path(__file__).parent.parent.parent
README = (ROOT / "README.md").read_text()


def _blocks(kind):
    return re.findall(rf"```{kind}\n(.*?)```", README, re.S)


def _matches(expected: list, got: list) -> bool:
    if not expected:
        return not got
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(_matches(rest, got[i:]) for i in range(len(got) + 1))
    if not got:
        return False
    ok = got[0].startswith(head[:-3]) if head.endswith("...") else got[0] == head
    return ok and _matches(rest, got[1:])


def _commands(block: str):
    """(command, exit status, expected output lines) for each `$ ` line of a console block."""
    out = []
    for line in block.splitlines():
        if line.startswith("$ "):
            command, _, comment = line[2:].partition("  #")
            m = re.search(r"exit (\d+)", comment)
            out.append([command.strip(), int(m.group(1)) if m else 0, []])
        else:
            out[-1][2].append(line)
    return out


@pytest.fixture()
def folder(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    return tmp_path


def test_readme_console_examples(folder):
    env = dict(os.environ, NO_COLOR="1", PATH=f"{pathlib.Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    blocks = _blocks("console")
    assert len(blocks) >= 5
    for block in blocks:
        for command, status, expected in _commands(block):
            if "--against openvino" in command and importlib.util.find_spec("openvino") is None:
                continue                # (.ci/run's floors: OpenVINO has no wheel for Python 3.9)
            r = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True,
                               timeout=300)
            got = (r.stdout + r.stderr).splitlines()
            assert r.returncode == status, (command, r.returncode, r.stdout, r.stderr)
            assert _matches(expected, got), (command, "\n".join(got))


def test_readme_python_examples(folder, monkeypatch):
    monkeypatch.chdir(folder)
    blocks = _blocks("python")
    assert len(blocks) == 3
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


def test_readme_install_commands_come_first():
    shell = _blocks("sh")
    assert shell[0].strip().endswith(".xml") and "pip install ." in shell[0]
    assert 'pip install -e ".[test]"' in shell[1] and shell[1].strip().endswith("python -m pytest -n auto")


def test_docs_codes_is_generated_from_the_data():
    assert (ROOT / "docs" / "codes.md").read_text() == markdown()


def test_readme_links_name_files_that_exist():
    links = re.findall(r"\]\(((?:docs/)[^)#]+)", README)
    assert links and all((ROOT / link).is_file() for link in links), links


def test_readme_configuration_is_what_irpool_reads(tmp_path):
    from irpool.config import read
    (block,) = _blocks("toml")
    (tmp_path / "pyproject.toml").write_text(block)
    cfg = read(str(tmp_path / "pyproject.toml"))
    assert cfg["ignore"] == {"unknown-attribute"} and cfg["strict"] is True and cfg["exclude"]


def test_the_pre_commit_hook_readme_names_exists():
    import yaml
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (block,) = [b for b in _blocks("yaml") if "hooks:" in b]
    assert yaml.safe_load(block)["repos"][0]["hooks"][0]["id"] in [h["id"] for h in hooks]


def test_readme_gives_each_extra_from_the_checkout_beside_its_published_form():
    """`pip install 'irpool[onnx]'` finds no distribution while irpool is on no index: every such line of README
    has the checkout's form (`pip install '.[onnx]'`) beside it, and every extra it names is one pyproject.toml
    defines."""
    from irpool.config import tomllib
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    published = [(m.start(), m.group(1)) for m in re.finditer(r"pip install '?\"?irpool\[([\w-]+)\]", README)]
    assert published
    for at, extra in published:
        assert extra in extras, extra
        near = README[max(0, at - 300):at + 300]
        assert f"pip install '.[{extra}]'" in near or "@ git+" in README[at:at + 80], README[at - 100:at + 100]


def test_import_irpool_from_the_repository_root_without_its_installed_schemas(tmp_path):
    """README's Python examples run from the repository root after `pip install .` (not -e): there the source
    irpool/ shadows the installed package, and has no irpool/schemas. The child imports irpool from the checkout
    with irpool.schemas made unimportable, as in that case, and checks, explains and runs the shipped examples."""
    code = """
import importlib.abc, sys
class NoSchemas(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "irpool.schemas":
            raise ModuleNotFoundError("No module named 'irpool.schemas'", name=name)
sys.meta_path.insert(0, NoSchemas())
sys.path.insert(0, ".")
import numpy as np
import irpool
assert irpool.__file__.startswith(sys.argv[1]), irpool.__file__
try:
    import irpool.schemas
    raise SystemExit("irpool.schemas imported")
except ModuleNotFoundError:
    pass
report = irpool.check("examples/small_net.xml")
assert report.ok and report.pooling_layers, report
assert "MaxPool" in irpool.explain("examples/small_net.xml")
out = irpool.run("examples/small_net.xml", {"image": np.zeros((1, 4, 16, 16), np.float32)})
assert out
print("ok")
"""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, "-c", code, str(ROOT)], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", (r.stdout, r.stderr)
