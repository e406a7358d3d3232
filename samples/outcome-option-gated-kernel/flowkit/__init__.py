"""flowkit: refine optical flow with an optional warping head."""
