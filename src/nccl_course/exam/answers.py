"""What an answer may be: a small JSON value, checked before anything is stored.

Answers are saved by ``nccl_course.store.answers.AnswerStore`` (batched by
``nccl_course.store.batching.GroupCommitWriter``); every refusal is raised before anything is
written, this shape check first.
"""

from __future__ import annotations

import json
import math

from nccl_course.exam.errors import Invalid, TooLarge

MAX_RESPONSE_BYTES = 4096


def check_response(response) -> None:
    """Responses are small JSON values: a number, a string, or a list of them (nested lists
    allowed for matching). The grader judges the content; this only bounds the shape. NaN
    and Infinity are refused (JSON has no such numbers: such an answer could be stored but
    never sent back), and so are strings that are not Unicode text."""

    def ok(value, depth):
        if isinstance(value, float):
            return math.isfinite(value)
        if value is None or isinstance(value, (bool, int, str)):
            return True
        if isinstance(value, list) and depth < 3:
            return all(ok(v, depth + 1) for v in value)
        return False

    if not ok(response, 0):
        raise Invalid("bad_response", "an answer is a number, a string or a list of them (not NaN)")
    try:
        size = len(json.dumps(response, allow_nan=False))
        json.dumps(response, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise Invalid("bad_response", "an answer holds a string that is not Unicode text") from None
    except (ValueError, TypeError):  # an integer past Python's digit limit
        raise Invalid("bad_response", "an answer is a number, a string or a list of them") from None
    if size > MAX_RESPONSE_BYTES:
        raise TooLarge("response_too_large", f"an answer is at most {MAX_RESPONSE_BYTES} B")
