"""pteforge.state: which buffers are state, shared or private, and the generated
reset_state / get_state methods (state.py).
"""
