"""The printable certificate: an A4 landscape page drawn with matplotlib (PDF or PNG).

It shows the learner's name, the achievement, the score, the date, the issuer, the credential
id and a QR code (segno) that opens the verify page for this credential. No network, DejaVu
fonts (matplotlib's default family). The QR code is drawn module by module into an axes whose
position is :data:`QR_RECT`, so a test can read it back from the PNG.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import segno
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from nccl_course.certs.credential import learner_name, parse_datetime
from nccl_course.certs.issuer import verify_link

PAGE_INCHES = (11.69, 8.27)  # A4 landscape
QR_RECT = (0.755, 0.095, 0.17, 0.17 * PAGE_INCHES[0] / PAGE_INCHES[1])  # left, bottom, w, h
QR_BORDER = 4  # quiet zone, in modules (ISO/IEC 18004 asks for 4)
INK = "#1b2a41"
ACCENT = "#76b900"


def qr_matrix(url: str) -> np.ndarray:
    """The QR code of ``url`` as a 0/1 array (1 = dark), quiet zone included."""
    code = segno.make(url, error="m", micro=False)
    core = np.array([list(row) for row in code.matrix], dtype=np.uint8)
    return np.pad(core, QR_BORDER)


def _score(credential: dict) -> str | None:
    for result in (credential.get("credentialSubject") or {}).get("result") or []:
        if "value" in result:
            return str(result["value"])
    return None


def render_certificate(credential: dict, out_path: Path, verify_url: str) -> Path:
    """Write the certificate to ``out_path`` (.pdf or .png) and return the path.

    ``verify_url`` is the verify page; the QR code encodes :func:`verify_link` of it and the
    credential id.
    """
    out_path = Path(out_path)
    suffix = out_path.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise ValueError(f"{out_path}: the certificate is written as .pdf or .png")
    credential_id = credential.get("id")
    if not credential_id:
        raise ValueError("the credential has no id")
    link = verify_link(verify_url, credential_id)
    name = learner_name(credential) or "(name not in credential)"
    subject = credential.get("credentialSubject") or {}
    achievement = (subject.get("achievement") or {}).get("name") or credential.get("name", "")
    issuer = credential.get("issuer")
    issuer_name = issuer.get("name", issuer.get("id")) if isinstance(issuer, dict) else issuer
    issuer_id = issuer.get("id") if isinstance(issuer, dict) else issuer
    when = parse_datetime(credential["validFrom"]).strftime("%d %B %Y")
    score = _score(credential)

    fig = Figure(figsize=PAGE_INCHES)
    page = fig.add_axes((0, 0, 1, 1))
    page.set_axis_off()
    page.set_xlim(0, 1)
    page.set_ylim(0, 1)
    page.add_patch(Rectangle((0.03, 0.04), 0.94, 0.92, fill=False, lw=3, ec=INK))
    page.add_patch(Rectangle((0.045, 0.06), 0.91, 0.88, fill=False, lw=1, ec=ACCENT))
    text = {"color": INK, "ha": "center", "va": "center"}
    page.text(0.5, 0.85, "Certificate of Achievement", fontsize=34, weight="bold", **text)
    page.text(0.5, 0.76, "This certifies that", fontsize=15, style="italic", **text)
    page.text(0.5, 0.67, name, fontsize=32, family="DejaVu Serif", **text)
    page.plot([0.25, 0.75], [0.62, 0.62], color=ACCENT, lw=1.5)
    page.text(0.5, 0.56, "has passed the exam of", fontsize=15, style="italic", **text)
    page.text(0.5, 0.49, achievement, fontsize=22, weight="bold", **text)
    if score is not None:
        page.text(0.5, 0.42, f"with a score of {score} %", fontsize=15, **text)
    left = {"color": INK, "ha": "left", "va": "center"}
    page.text(0.08, 0.27, f"Date: {when}", fontsize=13, **left)
    page.text(0.08, 0.22, f"Issued by: {issuer_name}", fontsize=13, **left)
    page.text(0.08, 0.17, f"Issuer: {issuer_id}", fontsize=9, family="DejaVu Sans Mono", **left)
    page.text(
        0.08, 0.13, f"Credential: {credential_id}", fontsize=9, family="DejaVu Sans Mono", **left
    )
    page.text(
        0.08,
        0.09,
        "Verify: scan the code, or run 'nccl-course cert verify' on the credential file.",
        fontsize=9,
        **left,
    )
    qr_ax = fig.add_axes(QR_RECT)
    qr_ax.set_axis_off()
    qr_ax.imshow(
        1 - qr_matrix(link), cmap="gray", vmin=0, vmax=1, interpolation="nearest", aspect="equal"
    )
    page.text(
        QR_RECT[0] + QR_RECT[2] / 2,
        QR_RECT[1] + QR_RECT[3] + 0.02,
        "Scan to verify",
        fontsize=10,
        **text,
    )
    metadata = {"Title": f"Certificate: {name}", "Subject": credential_id}
    if suffix == ".pdf":
        metadata.update({"Keywords": link, "Creator": "nccl-course", "CreationDate": None})
        fig.savefig(out_path, format="pdf", metadata=metadata)
    else:
        metadata.update({"Description": link, "Software": "nccl-course"})
        fig.savefig(out_path, format="png", dpi=150, metadata=metadata)
    return out_path
