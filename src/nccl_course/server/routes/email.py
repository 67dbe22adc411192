"""E-mail confirmation routes (``nccl_course.server.confirmations``):

- ``POST /exam/api/resend`` with the learner key: mail the link again (rate-limited per
  client address, group ``resend``; 409 when there is nothing to confirm);
- ``POST /exam/api/confirm`` ``{token}``: open a link (JSON: the address, the learner, and for
  a sign-in link the browser's new key); 404 unknown, 409 used, 410 expired;
- ``GET /exam/confirm`` the page a mailed link opens (``#TOKEN``), which posts the token; in
  the language of the mail (its link carries ``?lang=``) or of the browser.

With confirmation off, resend answers 409 and links mailed earlier still open.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse

from nccl_course.exam.errors import Conflict
from nccl_course.i18n.interface import N_
from nccl_course.server.api_models import ConfirmationRequest, Confirmed, LinkSent, refusals
from nccl_course.server.confirmations import CONFIRM_API, CONFIRM_PAGE, Confirmations
from nccl_course.server.mailer import Mailer
from nccl_course.server.routes.body import CONFIRM_BODY, documented, read_model
from nccl_course.server.routes.deps import LearnerToken, ResendLimit, ServiceDep, ok
from nccl_course.server.routes.language import Language
from nccl_course.server.routes.pages import page

router = APIRouter()


def _confirmations(service, request: Request) -> Confirmations:
    """The service's, or (confirmation off) one that still opens links mailed earlier."""
    if service.confirmations is not None:
        return service.confirmations
    return Confirmations(service.db, Mailer(request.app.state.settings))


@router.post(
    "/exam/api/resend",
    status_code=202,
    response_model=LinkSent,
    responses=refusals(400, 401, 409, 422, 429, 503),
)
async def resend(_limit: ResendLimit, token: LearnerToken, service: ServiceDep, language: Language):
    """Mail a fresh link to the address of this key's registration, in the request's language
    (the mail is sent from a worker thread; 503 ``mail_failed`` if the SMTP server refuses, and
    nothing changes)."""
    if service.confirmations is None:
        raise Conflict("confirmation_off", N_("this server does not confirm e-mail addresses"))
    return ok(await run_in_threadpool(service.confirmations.resend, token, language), 202)


@router.post(
    CONFIRM_API,
    response_model=Confirmed,
    responses=refusals(404, 409, 410, 413, 422, 503),
    openapi_extra=documented(ConfirmationRequest),
)
async def confirm(request: Request, service: ServiceDep):
    token = (await read_model(request, CONFIRM_BODY, ConfirmationRequest)).token
    confirmations = _confirmations(service, request)
    return ok(await run_in_threadpool(confirmations.confirm, token))


@router.get(CONFIRM_PAGE, response_class=HTMLResponse, include_in_schema=False)
def confirm_page(request: Request):
    return page(request, "confirm.html")
