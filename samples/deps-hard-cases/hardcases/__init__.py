"""Hard cases for the dependency front ends: the code itself is portable."""
