"""The online game: tables, seats and their tokens, persistence, the WebSocket protocol.

An interface like the terminal game: it holds :mod:`piepmatz.core` games and translates between
them and the network, with no rule of its own. FastAPI, SQLAlchemy and Alembic are imported only
here (the ``server`` extra).
"""
