"""A local SMTP server that keeps every message it receives (aiosmtpd in a thread), for the
e-mail confirmation tests: ``with SmtpSink() as sink: ... sink.messages``."""

from __future__ import annotations

import re
import time
from email import message_from_bytes, policy
from email.message import EmailMessage

from aiosmtpd.controller import Controller

from nccl_course.launcher import free_port

LINK = re.compile(r"https?://\S+/exam/confirm#([A-Za-z0-9_-]+)")


class _Keep:
    def __init__(self, sink: SmtpSink):
        self.sink = sink

    async def handle_DATA(self, _server, _session, envelope):
        message = message_from_bytes(envelope.original_content, policy=policy.default)
        self.sink.received.append((list(envelope.rcpt_tos), message))
        return "250 OK"


class SmtpSink:
    def __init__(self, port: int | None = None):
        self.port = port or free_port()
        self.received: list[tuple[list[str], EmailMessage]] = []
        self.controller = Controller(_Keep(self), hostname="127.0.0.1", port=self.port)

    def __enter__(self) -> SmtpSink:
        self.controller.start()
        return self

    def __exit__(self, *exc) -> None:
        self.controller.stop()

    @property
    def messages(self) -> list[EmailMessage]:
        return [message for _, message in self.received]

    def wait(self, count: int, timeout_s: float = 10.0) -> list[EmailMessage]:
        """The first ``count`` messages, once that many arrived."""
        deadline = time.monotonic() + timeout_s
        while len(self.received) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(self.received) >= count, f"{len(self.received)} of {count} mails arrived"
        return self.messages[:count]


def link_token(message: EmailMessage) -> str:
    """The token of the confirmation link in a mail's text."""
    found = LINK.findall(message.get_content())
    assert len(found) == 1, message.get_content()
    return found[0]


def link_url(message: EmailMessage) -> str:
    found = LINK.search(message.get_content())
    assert found, message.get_content()
    return found.group(0)
