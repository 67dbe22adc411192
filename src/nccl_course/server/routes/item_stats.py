"""The exam's item statistics for the admin: ``GET /exam/api/admin/item-stats`` (JSON, admin
token as bearer) and the page ``GET /exam/admin/stats`` that shows them.

The page holds no data: its script (``static/admin-stats.js``) asks for the admin token, sends
it to the JSON route and draws the tables, so the statistics stay behind the same check as
every admin action (``deps.AdminToken``). The page and its script's words are translated as the
exam's pages are; the flags and their meanings stay in English, as the API and the command
line write them. The figures are those of ``nccl-course exam stats``
(``nccl_course.exam.item_stats`` over ``nccl_course.store.item_responses``), for the exam
this server gives.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse
from pydantic import BaseModel

from nccl_course.exam.item_stats import (
    DEFAULT_MIN_RESPONSES,
    GroupStats,
    ItemStats,
    Reliability,
    compute,
)
from nccl_course.server.api_models import refusals
from nccl_course.server.routes.deps import AdminToken, ok
from nccl_course.server.routes.pages import page
from nccl_course.store.item_responses import graded_responses

router = APIRouter()
PAGE = "admin-stats.html"
# A bound on the query parameter: larger than any class, small enough to stay an int.
MAX_MIN_RESPONSES = 1_000_000


class ItemStatsReport(BaseModel):
    """``GET /exam/api/admin/item-stats``: ``ExamStats.to_dict()`` of the server's exam."""

    exam_id: str
    attempts: int
    responses: int
    min_responses: int
    thresholds: dict[str, float]
    flag_meanings: dict[str, str]
    items: list[ItemStats]
    chapters: list[GroupStats]
    objectives: list[GroupStats]
    reliability: Reliability | None


def report(db, exam_id: str, min_responses: int) -> dict:
    with db.read() as session:
        responses = graded_responses(session, exam_id)
    return {"exam_id": exam_id, **compute(responses, min_responses).to_dict()}


@router.get(
    "/exam/api/admin/item-stats",
    response_model=ItemStatsReport,
    responses=refusals(403, 422, 429),
)
async def item_stats(
    request: Request,
    _admin: AdminToken,
    min_responses: Annotated[int, Query(ge=1, le=MAX_MIN_RESPONSES)] = DEFAULT_MIN_RESPONSES,
):
    """Difficulty, discrimination and flags of every question of the graded attempts, per
    chapter and objective, and the exam's reliability (``nccl-course exam stats --json``)."""
    exam_id = request.app.state.service.blueprint.exam_id
    return ok(await run_in_threadpool(report, request.app.state.db, exam_id, min_responses))


@router.get("/exam/admin/stats", response_class=HTMLResponse, include_in_schema=False)
def stats_page(request: Request):
    """The page in the request's language, as the exam's pages (``pages.page``)."""
    return page(request, PAGE)
