"""``python -m controller`` runs the ``croupier`` command line."""

from controller.cli import main

main()
