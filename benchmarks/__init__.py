"""Speed and accuracy measurements, run by ``croupier bench``."""
