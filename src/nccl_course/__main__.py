import sys

from nccl_course.cli import main

sys.exit(main())
