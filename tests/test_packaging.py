import re
from pathlib import Path

import sklearn_plc

ROOT = Path(__file__).resolve().parent.parent


def test_ci_runs_exactly_the_readme_test_command():
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    command = ci_lines[-1]
    readme_commands = re.findall(
        r"```bash\n(.*?)\n```", (ROOT / "README.md").read_text()
    )
    assert command in readme_commands
    assert "pytest" in command


def test_readme_main_job_runs_the_quick_benchmark():
    readme = (ROOT / "README.md").read_text()
    assert "-m benchmarks quick" in readme


def test_package_exposes_a_version_and_its_public_names():
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", sklearn_plc.__version__)
    for name in sklearn_plc.__all__:
        assert hasattr(sklearn_plc, name)


def test_package_is_typed():
    assert (Path(sklearn_plc.__file__).parent / "py.typed").exists()


def _quick_start(path):
    text = (ROOT / path).read_text()
    section = text[text.index("## Quick start") :]
    return re.search(r"```python\n(.*?)\n```", section, re.S).group(1)


def test_the_getting_started_page_shows_the_readmes_quick_start():
    assert _quick_start("docs/getting_started.md") == _quick_start("README.md")


def test_the_readme_quick_start_prints_what_its_comments_say(capsys):
    code = _quick_start("README.md")
    exec(compile(code, "README quick start", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    shown = [line[2:] for line in code.splitlines() if line.startswith("# ")]
    assert len(printed) == len(shown) == 3
    for line, comment in zip(printed, shown, strict=True):
        expected = comment.split("...")[0]  # up to the elided part
        assert line.startswith(expected)


def test_readme_and_getting_started_state_the_same_main_job_and_time():
    def main_job(path):
        text = (ROOT / path).read_text()
        (command,) = [
            c for c in re.findall(r"```bash\n(.*?)\n```", text) if "quick" in c
        ]
        time = re.search(
            r"about (?:a|one|two|three) minutes? on 2 cores", text.replace("\n", " ")
        )
        return command, time and time.group(0)

    assert main_job("README.md") == main_job("docs/getting_started.md")
    assert main_job("README.md")[1]  # a few minutes, as the guide asks


def test_the_readmes_noise_example_runs_as_written(capsys):
    text = (ROOT / "README.md").read_text()
    section = text[text.index("To inject noise and evaluate on clean labels") :]
    code = re.search(r"```python\n(.*?)\n```", section, re.S).group(1)
    exec(compile(code, "README noise example", "exec"), {})  # every name defined
    assert capsys.readouterr().out.startswith("[")


def test_the_examples_import_only_what_an_installed_user_has():
    import ast

    for example in (ROOT / "examples").glob("*.py"):
        tree = ast.parse(example.read_text())
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {
            node.module.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
        }
        assert "benchmarks" not in imported, example.name
