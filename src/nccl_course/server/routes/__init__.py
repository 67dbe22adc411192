"""The HTTP routes of the course server, one router per area:

- ``pages``: ``GET /exam``, ``GET /exam/verify`` (HTML, no CDN), their static files, and the
  built book at ``/``;
- ``attempts``: the learner's API under ``/exam/api`` (rules, registration, attempts, answers);
- ``email``: confirming a learner's e-mail address (``/exam/api/resend``, ``/exam/api/confirm``
  and the page ``/exam/confirm`` a mailed link opens);
- ``credentials``: the credential download, the certificate and ``POST /exam/api/verify``;
- ``admin``: ``POST /exam/api/admin/revoke`` with the admin token;
- ``item_stats``: the exam's item statistics, ``GET /exam/api/admin/item-stats`` with the admin
  token, and the page ``/exam/admin/stats`` that shows them;
- ``status``: ``/exam/api/health``, ``/.well-known/did.json`` and ``/credentials/status/N``.

``deps`` holds the dependencies they share (the learner key, the service, the settings);
``body`` reads and parses request bodies within each route's limits, after its key check;
``language`` picks the language of the answer (``?lang=``, the ``nccl_lang`` cookie,
``Accept-Language``).
"""
