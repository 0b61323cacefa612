"""pteforge.emit: from edge dialect to the program's bytes.

  emission       plan_and_emit: state updates prepared, memory planned with the state
                 shared by name (memory id 2, one place in every method), serialization
  state_sources  state written straight from another buffer gets a copy of its own
  inplace_state  state updated by index_put is written in place
  metadata       what pteforge stores in each .pte, as a constant method returning text
  plan           the memory plan read back out of the emitted program
"""
