"""labs/cloud/slurm.sbatch and labs/cloud/k8s-job.yaml: they parse, and ask for what they say.

The sbatch file passes ``bash -n`` and its #SBATCH lines (read as sbatch reads them: up to the
first command) request two whole nodes of 8 GPUs with a time limit; the Job is YAML with a
memory-backed /dev/shm, a GPU limit, a deadline and no retries, and its script passes
``bash -n``. Both stay short (under 60 lines).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from nccl_course import yaml_text

CLOUD = Path(__file__).resolve().parents[2] / "labs" / "cloud"
SBATCH = CLOUD / "slurm.sbatch"
K8S_JOB = CLOUD / "k8s-job.yaml"


def _bash_parses(script: str) -> None:
    done = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
    assert done.returncode == 0, f"bash -n:\n{done.stderr}"


def _sbatch_options(text: str) -> dict[str, str]:
    """The #SBATCH options before the first command, as sbatch reads them."""
    options = {}
    for line in text.splitlines()[1:]:
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break
        if stripped.startswith("#SBATCH "):
            name, _, value = stripped.removeprefix("#SBATCH ").partition("=")
            options[name] = value
    return options


def test_sbatch_is_bash_and_asks_for_two_whole_gpu_nodes():
    text = SBATCH.read_text(encoding="utf-8")
    assert text.startswith("#!/bin/bash\n")
    _bash_parses(text)
    assert _sbatch_options(text) == {
        "--job-name": "nccl-course-gpu-check",
        "--nodes": "2",
        "--ntasks-per-node": "1",
        "--gpus-per-node": "8",
        "--exclusive": "",
        "--time": "00:45:00",
        "--output": "slurm-%j.out",
    }
    assert "srun --nodes=1 --ntasks=1 make setup-labs" in text
    assert '--node-rank "$SLURM_NODEID"' in text and '--master-addr "$HEAD_NODE"' in text
    assert "/dev/shm" in text
    assert len(text.splitlines()) < 60


def test_k8s_job_has_shm_gpus_and_a_deadline():
    text = K8S_JOB.read_text(encoding="utf-8")
    job = yaml_text.safe_load(text)
    assert (job["apiVersion"], job["kind"]) == ("batch/v1", "Job")
    spec = job["spec"]
    assert spec["backoffLimit"] == 0
    assert spec["activeDeadlineSeconds"] == 3600
    pod = spec["template"]["spec"]
    assert pod["restartPolicy"] == "Never"
    (container,) = pod["containers"]
    assert container["resources"]["limits"] == {"nvidia.com/gpu": 8}
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert mounts == {"dshm": "/dev/shm"}
    assert volumes["dshm"]["emptyDir"]["medium"] == "Memory"
    assert container["command"] == ["bash", "-c"]
    (script,) = container["args"]
    _bash_parses(script)
    assert "make setup-labs" in script and "bash labs/gpu_check.sh /results" in script
    assert script.rstrip().endswith("exit $status")
    assert len(text.splitlines()) < 60
