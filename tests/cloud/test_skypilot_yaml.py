"""labs/cloud/skypilot*.yaml, read by SkyPilot's own parser (``sky.Task.from_yaml``).

SkyPilot lives in its own venv, .venv-sky (``make skypilot``: it needs click<8.2, which the
course's lock does not allow), so the parser runs there in a subprocess with HOME in a temporary
folder (SkyPilot writes ~/.sky). The tests skip, saying so, where .venv-sky is absent.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SKY_PYTHON = REPO / ".venv-sky" / "bin" / "python"
SINGLE = REPO / "labs" / "cloud" / "skypilot.yaml"
TWO_NODES = REPO / "labs" / "cloud" / "skypilot-2node.yaml"
GPU_CANDIDATES = [{"H100": 8}, {"A100-80GB": 8}, {"L4": 4}]
AUTODOWN = {"enabled": True, "idle_minutes": 15, "down": True, "wait_for": "jobs"}

# Prints what SkyPilot made of the YAML named by argv[1], as JSON.
READ_TASK = textwrap.dedent(
    """
    import json, sys
    import sky

    task = sky.Task.from_yaml(sys.argv[1])
    resources = list(task.resources)
    autostop = [r.autostop_config for r in resources]
    print(json.dumps({
        "name": task.name,
        "num_nodes": task.num_nodes,
        "ordered": isinstance(task.resources, list),
        "accelerators": [r.accelerators for r in resources],
        "autostop": [
            {"enabled": a.enabled, "idle_minutes": a.idle_minutes, "down": a.down,
             "wait_for": a.wait_for.value}
            for a in autostop
        ],
        "workdir": task.workdir,
        "envs": task.envs,
        "setup": task.setup,
        "run": task.run,
    }))
    """
)


def _sky(yaml_path: Path, home: Path) -> subprocess.CompletedProcess:
    if not SKY_PYTHON.is_file():
        pytest.skip("SkyPilot is not installed in .venv-sky: run `make skypilot` first")
    return subprocess.run(
        [str(SKY_PYTHON), "-c", READ_TASK, str(yaml_path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=120,
    )


def _read(yaml_path: Path, home: Path) -> dict:
    done = _sky(yaml_path, home)
    assert done.returncode == 0, f"SkyPilot rejected {yaml_path.name}:\n{done.stderr}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def _bash_parses(script: str) -> None:
    done = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
    assert done.returncode == 0, f"bash -n:\n{done.stderr}\n{script}"


@pytest.fixture(scope="module")
def tasks(tmp_path_factory) -> dict[str, dict]:
    """Both YAML files as SkyPilot reads them (one parser run each for the whole module)."""
    home = tmp_path_factory.mktemp("sky-home")
    return {path.name: _read(path, home) for path in (SINGLE, TWO_NODES)}


def test_one_node_task(tasks):
    task = tasks[SINGLE.name]
    assert task["name"] == "nccl-course-gpu-check"
    assert task["num_nodes"] == 1
    assert task["ordered"] is True, "a YAML list of accelerators is tried in order"
    assert task["accelerators"] == GPU_CANDIDATES
    assert task["autostop"] == [AUTODOWN] * 3
    assert task["workdir"] == "."
    assert "make setup-labs" in task["setup"]
    assert "bash labs/gpu_check.sh results/" in task["run"]
    assert ".venv/bin/nccl-course report results/" in task["run"]
    assert task["run"].rstrip().endswith("exit $status")


def test_two_node_task_feeds_skypilots_variables_to_gpu_check(tasks):
    task = tasks[TWO_NODES.name]
    assert task["name"] == "nccl-course-gpu-check-2node"
    assert task["num_nodes"] == 2
    assert task["accelerators"] == GPU_CANDIDATES
    assert task["autostop"] == [AUTODOWN] * 3
    assert task["envs"] == {"RDZV_PORT": "29500"}
    run = task["run"]
    assert 'head_ip=$(echo "$SKYPILOT_NODE_IPS" | head -n 1)' in run
    for flag in (
        '--nnodes "$SKYPILOT_NUM_NODES"',
        '--node-rank "$SKYPILOT_NODE_RANK"',
        '--master-addr "$head_ip"',
        '--master-port "$RDZV_PORT"',
    ):
        assert flag in run, f"the gpu_check.sh command lacks {flag}"
    assert "$SKYPILOT_NUM_GPUS_PER_NODE" in run


@pytest.mark.parametrize("yaml_path", [SINGLE, TWO_NODES], ids=["one-node", "two-nodes"])
def test_setup_and_run_are_valid_bash(yaml_path, tasks):
    task = tasks[yaml_path.name]
    _bash_parses(task["setup"])
    _bash_parses(task["run"])


def test_the_parser_rejects_a_misspelt_key(tmp_path):
    """The check above means something: SkyPilot's schema refuses keys it does not know."""
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(SINGLE.read_text().replace("idle_minutes:", "idle_minute:"))
    done = _sky(wrong, tmp_path)
    assert done.returncode != 0
    assert "idle_minute" in done.stderr
