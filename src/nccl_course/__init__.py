"""nccl_course: the shared library behind the course's book, notebooks, labs, quizzes and exam."""

__version__ = "0.1.0"
