"""The Solve posture flow, the Solved gait tab and the Validity panel."""
