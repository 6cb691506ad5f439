"""ssimd.v1: messages (ssimd_pb2) and the ScoringService stub (ssimd_pb2_grpc), generated."""
