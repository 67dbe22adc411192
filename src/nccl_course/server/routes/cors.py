"""Public documents any web page may read: ``Access-Control-Allow-Origin: *`` (CORS).

A verifier running in someone else's web page (a wallet, a backpack, another course's verify
page) fetches the issuer's DID document, its status lists and a credential's share links from
its own origin; without this header the browser hides the answer from it. These documents are
public and the requests carry no cookie or key, so any origin may read them.
"""

from __future__ import annotations

from starlette.responses import Response

ANY_ORIGIN = {"Access-Control-Allow-Origin": "*"}


def public(response: Response) -> Response:
    """``response`` with :data:`ANY_ORIGIN`: readable by scripts of any origin."""
    response.headers.update(ANY_ORIGIN)
    return response
