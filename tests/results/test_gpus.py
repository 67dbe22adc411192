"""GPU names as torch reports them, matched to the preset family that describes the node."""

from __future__ import annotations

import pytest

from nccl_course.cost.presets import get_preset
from nccl_course.results.gpus import FAMILIES, family_of


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("NVIDIA H100 80GB HBM3", "H100 SXM"),
        ("NVIDIA H100 PCIe", "H100 PCIe"),
        ("NVIDIA H200", "H200 SXM"),
        ("NVIDIA A100-SXM4-80GB", "A100 SXM"),
        ("NVIDIA A100-PCIE-40GB", "A100 PCIe"),
        ("NVIDIA A100 80GB PCIe", "A100 PCIe"),
        ("NVIDIA B200", "B200"),
        ("NVIDIA H100 NVL", None),  # PCIe cards in NVLink-bridged pairs: no preset
        ("NVIDIA H200 NVL", None),
        ("NVIDIA GB200", None),
        ("NVIDIA H800", None),
        ("NVIDIA GeForce RTX 4090", None),
    ],
)
def test_each_gpu_name_gets_its_family_or_none(name, family):
    found = family_of([name] * 8)
    assert (found.name if found else None) == family


def test_no_names_or_a_mix_get_no_family():
    assert family_of([]) is None
    assert family_of(["NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB"]) is None


def test_every_family_names_presets_with_an_nccl_description():
    for family in FAMILIES:
        for name in (*family.one_node, family.multi_node):
            if name is not None:
                preset = get_preset(name)
                assert preset.nccl is not None, name
        assert get_preset(family.one_node[0]).nodes == 1
        if family.multi_node:
            assert get_preset(family.multi_node).nccl.nics_per_node > 0
    # the NVLS variant comes last where a family has two
    for family in FAMILIES:
        if len(family.one_node) == 2:
            a, b = (get_preset(n).nccl.nvls for n in family.one_node)
            assert (a, b) == (False, True), family.name
