"""PLC on several processes with Hugging Face accelerate (skorch's AccelerateMixin).

Two CPU processes under ``torchrun`` (gloo, loopback only) against one process
on the same data; the same on two GPUs where a machine has them.
"""

import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("skorch")
pytest.importorskip("accelerate")
torch = pytest.importorskip("torch")

WORKER = Path(__file__).with_name("accelerate_worker.py")
TIMEOUT_S = 300


def free_loopback_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run_worker(out, device, n_processes, proba_source="training_pass"):
    out.mkdir()
    arguments = [str(WORKER), str(out), device, proba_source]
    if n_processes == 1:
        command = [sys.executable, *arguments]
    else:
        command = [
            sys.executable,
            "-m",
            "torch.distributed.run",
            f"--nproc_per_node={n_processes}",
            "--master_addr=127.0.0.1",
            f"--master_port={free_loopback_port()}",
            *arguments,
        ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)
    written = sorted(out.glob("rank*.npz"))
    names = [path.name for path in written]
    assert done.returncode == 0, f"results written: {names}\n{done.stderr[-3000:]}"
    return [dict(np.load(path)) for path in written]


@pytest.fixture(scope="module")
def cpu_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("accelerate")
    return {
        "single": run_worker(root / "single", "cpu", 1),
        "two": run_worker(root / "two", "cpu", 2),
    }


def purity(run):
    return float(np.mean(run["labels"] == run["clean"]))


def test_two_processes_train_as_multi_cpu(cpu_runs):
    ranks = cpu_runs["two"]
    assert len(ranks) == 2
    assert {str(rank["distributed_type"]) for rank in ranks} == {
        "DistributedType.MULTI_CPU"
    }


def test_every_process_ends_with_the_same_labels(cpu_runs):
    first, second = cpu_runs["two"]
    np.testing.assert_array_equal(first["labels"], second["labels"])


def test_label_purity_improves_as_on_one_process(cpu_runs):
    (single,), (two, _) = cpu_runs["single"], cpu_runs["two"]
    before = float(np.mean(single["noisy"] == single["clean"]))
    assert purity(single) > before + 0.15
    assert purity(two) > before + 0.15
    assert abs(purity(two) - purity(single)) < 0.05


def test_each_process_records_only_its_share_of_the_outputs(cpu_runs):
    (single,), ranks = cpu_runs["single"], cpu_runs["two"]
    for rank in ranks:
        assert int(rank["recorded_bytes"]) <= int(single["recorded_bytes"]) // 2 + 64


def test_an_evaluation_pass_also_gives_every_process_the_same_labels(tmp_path):
    first, second = run_worker(tmp_path / "eval", "cpu", 2, "eval_pass")
    np.testing.assert_array_equal(first["labels"], second["labels"])
    assert purity(first) > float(np.mean(first["noisy"] == first["clean"])) + 0.15


@pytest.mark.skipif(
    not torch.cuda.is_available() or torch.cuda.device_count() < 2,
    reason="needs two CUDA devices",
)
def test_two_gpus_end_with_the_same_improved_labels(tmp_path):
    first, second = run_worker(tmp_path / "gpus", "cuda", 2)
    np.testing.assert_array_equal(first["labels"], second["labels"])
    assert purity(first) > float(np.mean(first["noisy"] == first["clean"])) + 0.15
