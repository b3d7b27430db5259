"""The terminal game: ``piepmatz play`` (a Textual app) and ``piepmatz play --text`` (plain lines).

The modules without Textual (:mod:`.session`, :mod:`.render`, :mod:`.preview`, :mod:`.textmode`,
:mod:`.rulesdoc`) hold the game session, the table as text and the previews; :mod:`.app` is the
Textual front end. None of them holds a rule: what a seat sees comes from
:func:`piepmatz.core.view.view_of`, what it may do from the engine's legal actions.
"""
