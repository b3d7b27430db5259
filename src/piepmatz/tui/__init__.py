"""The terminal game: ``piepmatz play`` (a Textual app) and ``piepmatz play --text`` (plain lines).

The modules without Textual (:mod:`.session`, :mod:`.render`, :mod:`.textmode`) hold the game
session and the table as text; the sentences, previews and rules text come from
:mod:`piepmatz.text`, which the game server shares; :mod:`.app` is the Textual front end. None of
them holds a rule: what a seat sees comes from :func:`piepmatz.core.view.view_of`, what it may do
from the engine's legal actions.
"""
