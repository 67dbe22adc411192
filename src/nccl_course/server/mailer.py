"""Sending the course server's e-mail (confirmation and sign-in links) with ``smtplib``.

``Mailer.send`` blocks for as long as the SMTP conversation takes (at most ``SMTP_TIMEOUT_S``
per network operation), so the routes call it from a worker thread, never on the event loop.
Security follows ``Settings.smtp_security``: ``starttls`` (a plain connection upgraded with
STARTTLS before any login, RFC 3207; port 587), ``tls`` (TLS from the first byte, RFC 8314;
port 465) or ``none``. The server's certificate is checked against the system's trust store.
The password is used for the login only: it is never logged, and a failure is reported
without it.

Without an SMTP host (development), a mail is printed to the server's standard output, so the
developer can open its link; production refuses to start that way (``Settings``).

A mail is written in one language (its subject and body come translated from
``nccl_course.server.confirmations``); ``Content-Language`` says which.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
import sys
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from nccl_course.exam.errors import Unavailable
from nccl_course.i18n.interface import N_
from nccl_course.server.settings import Settings

log = logging.getLogger("nccl_course.exam.mail")

SMTP_TIMEOUT_S = 20.0


class Mailer:
    def __init__(self, settings: Settings):
        self.settings = settings

    @property
    def prints(self) -> bool:
        """True when there is no SMTP server and mails go to standard output."""
        return not self.settings.smtp_host

    def message(self, to: str, subject: str, body: str, language: str = "en") -> EmailMessage:
        message = EmailMessage()
        message["From"] = self.settings.mail_from
        message["To"] = to
        message["Subject"] = subject
        message["Date"] = formatdate(localtime=False)
        message["Message-ID"] = make_msgid(domain="nccl-course.invalid")
        message.set_content(body)
        message["Content-Language"] = language  # after set_content, which drops Content-*
        return message

    def send(self, to: str, subject: str, body: str, language: str = "en") -> None:
        """Deliver one plain-text mail; ``Unavailable`` (503, code ``mail_failed``) if the
        SMTP server cannot be reached or refuses it."""
        if self.prints:
            print(
                f"--- e-mail (no SMTP server configured: development) ---\nTo: {to}\n"
                f"Subject: {subject}\n\n{body}---",
                file=sys.stdout,
                flush=True,
            )
            return
        message = self.message(to, subject, body, language)
        s = self.settings
        try:
            context = ssl.create_default_context()
            if s.smtp_security == "tls":
                smtp = smtplib.SMTP_SSL(
                    s.smtp_host, s.smtp_port, timeout=SMTP_TIMEOUT_S, context=context
                )
            else:
                smtp = smtplib.SMTP(s.smtp_host, s.smtp_port, timeout=SMTP_TIMEOUT_S)
            with smtp:
                if s.smtp_security == "starttls":
                    smtp.starttls(context=context)
                if s.smtp_username:
                    smtp.login(s.smtp_username, s.smtp_password or "")
                smtp.send_message(message)
        except (OSError, smtplib.SMTPException) as exc:
            # The exception's text never holds the password (smtplib does not echo it).
            log.warning(
                "cannot send mail through %s:%s: %s: %s",
                s.smtp_host,
                s.smtp_port,
                type(exc).__name__,
                exc,
            )
            raise Unavailable(
                "mail_failed",
                N_(
                    "the server could not send the e-mail just now; nothing is lost: "
                    "try again in a minute"
                ),
            ) from None
