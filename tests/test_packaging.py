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
