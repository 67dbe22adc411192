"""The exam itself, as rules with no web and no database: the blueprint and how questions are
drawn from the banks (``blueprint``, ``selection``, ``banks``), learners' identities and keys (``learners``),
attempts' deadlines, what a learner sees and grading (``attempts``), what an answer may be
(``answers``), the clock (``clock``), the refusals, by meaning (``errors``), and the item
statistics of graded attempts (``item_stats``).

The course server (``nccl_course.server``) runs these rules over the database
(``nccl_course.store``) and issues credentials for passed attempts (``nccl_course.issuing``).
"""
