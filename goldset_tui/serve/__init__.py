"""`goldset serve`: the judging screen in a web browser, behind a login.

- ``users``: USERS.toml, tokens and their salted scrypt hashes (standard library only).
- ``server``: the aiohttp server built on textual-serve (the ``serve`` extra): the login, one-use
  websocket tickets, one judging process per labeller, SIGHUP to close it.
- ``textual_serve_adapter``: the only module that imports textual-serve, and the only user of its
  private names (each listed there; tests/unit/serve/test_textual_serve_contract.py checks them
  against the installed version).
- ``child``: the judging process, ``goldset judge``'s own code without the terminal check.
- ``page``: the two HTML pages and their security headers.

Nothing here imports Textual at module level (the judging process imports it when it runs), and
only ``server`` and its adapter need the ``serve`` extra: ``goldset serve --add-user`` works without it.
"""
