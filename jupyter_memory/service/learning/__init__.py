"""Learning, the policy: the session digest, review, and the self-learner."""
