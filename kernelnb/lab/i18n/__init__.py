"""kernelnb in French as well as English: the lab's messages and the course's notebooks.

:mod:`kernelnb.lab.i18n.notebooks` keeps the French course beside the English notebooks (one
gettext catalog per notebook) and generates the French notebooks from them.
"""
