"""The sim and model subcommands, run through the real CLI entry point."""

from __future__ import annotations

import json

from nccl_course.cli import main


def test_sim_prints_steps_bytes_and_verifies(capsys):
    assert main(["sim", "all_reduce", "--algo", "ring", "--ranks", "4", "--size", "4MiB"]) == 0
    out = capsys.readouterr().out
    assert "6 steps" in out
    assert "step   1: 0->1+[0]" in out  # a reduction from rank 0 into rank 1
    # the notation is explained once, above the first step
    lines = out.splitlines()
    legend = [i for i, line in enumerate(lines) if "S->D+[c]" in line and "S->D[c]" in line]
    assert legend == [lines.index(next(x for x in lines if x.startswith("  step   1:"))) - 1]
    assert out.count("6,291,456 B") == 4  # 2 (p-1)/p x 4 MiB per rank
    assert "equals the numpy definition" in out


def test_sim_rejects_unknown_algorithm(capsys):
    assert main(["sim", "all_reduce", "--algo", "nope"]) == 2
    assert "choose one of" in capsys.readouterr().err


def test_sim_exit_code_follows_the_data_check(capsys, monkeypatch):
    import nccl_course.sim as sim

    monkeypatch.setattr(sim, "check_schedule", lambda *a, **k: "rank 0: element 0 is 1")
    assert main(["sim", "broadcast", "--algo", "binomial_tree", "--ranks", "3"]) == 1
    assert "wrong data" in capsys.readouterr().err


def test_model_json_and_units(capsys):
    code = main(
        [
            "model",
            "all_reduce",
            "--size",
            "1GiB",
            "--preset",
            "h100-nvlink",
            "--algo",
            "ring",
            "--json",
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["size_bytes"] == 1024**3 and data["algorithm"] == "ring"
    assert abs(data["busbw_GBps"] - data["algbw_GBps"] * 2 * 7 / 8) < 1e-9


def test_model_lists_presets_with_sources(capsys):
    assert main(["model", "--list-presets"]) == 0
    out = capsys.readouterr().out
    for name in ("h100-nvlink", "h100-nvls", "pcie-gen4", "ib-ndr-2node", "roce-2node"):
        assert name in out
    assert "source:" in out


def test_model_unknown_preset_says_what_to_do(capsys):
    assert main(["model", "all_reduce", "--size", "1MiB", "--preset", "tpu"]) == 2
    assert "--list-presets" in capsys.readouterr().err
