# Example and benchmark PVM programs (built, not installed).
