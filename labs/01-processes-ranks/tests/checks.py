"""Runs on every rank: calls the learner's lab 01 functions and returns what each part gave."""

from nccl_course.labs.parts import run_parts
from nccl_course.launcher.launch import load_file_module


def check_all(lab_file):
    lab = load_file_module(lab_file)
    return run_parts(
        {
            "whoami": lab.whoami,
            "parity_groups": lab.parity_groups,
            "placements": lab.placements,
        },
        lab_file,
    )
