"""Print the exact versions of everything installed in this venv, for requirements/lock.txt.

torch and the course itself are left out: torch is installed by scripts/install_torch.py (CPU or
CUDA build, chosen per machine) and the course is installed in editable mode.
"""

import subprocess
import sys

frozen = subprocess.run(
    [sys.executable, "-m", "pip", "freeze", "--exclude-editable"],
    capture_output=True,
    text=True,
    check=True,
).stdout.splitlines()
skip = ("torch==", "nccl-course", "nccl_course")
print("\n".join(line for line in frozen if not line.lower().startswith(skip)))
