"""pteforge.verify: the three verifications the exporter runs on every program.

  state_placement  (a) every state buffer has one place in the program
  delegated_state  (b) no delegate took a state buffer as constant data
  conformance      (c) the program behaves as eager PyTorch across a call sequence
  random_calls     random call sequences, seeded, for (c)
  replay           what (c) ran, as a record to replay where the program runs
"""
