"""Runs on every rank: the learner's measurement worker."""

from nccl_course.labs.parts import run_parts
from nccl_course.launcher.launch import load_file_module

SIZES = [8, 512, 32768]


def check_all(lab_file):
    lab = load_file_module(lab_file)
    return run_parts({"measure": lambda: lab.measure_all_reduce(SIZES, iters=2)}, lab_file)
