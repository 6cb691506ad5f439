"""gRPC C++ code generation with Debian's protoc and grpc_cpp_plugin (no cc_grpc_library offline)."""

load("@rules_cc//cc:defs.bzl", "cc_library")

def cc_grpc_library(name, src, deps = [], **kwargs):
    """Generates <src>.pb.{h,cc} and <src>.grpc.pb.{h,cc} and wraps them in a cc_library."""
    base = src[:-len(".proto")]
    outs = [base + suffix for suffix in [".pb.h", ".pb.cc", ".grpc.pb.h", ".grpc.pb.cc"]]
    native.genrule(
        name = name + "_codegen",
        srcs = [src],
        outs = outs,
        tools = ["@sys_bin//:protoc", "@sys_bin//:grpc_cpp_plugin"],
        cmd = ("$(location @sys_bin//:protoc) --proto_path=. --cpp_out=$(GENDIR) --grpc_out=$(GENDIR) " +
               "--plugin=protoc-gen-grpc=$(location @sys_bin//:grpc_cpp_plugin) $(location %s)") % src,
    )
    cc_library(
        name = name,
        srcs = [o for o in outs if o.endswith(".cc")],
        hdrs = [o for o in outs if o.endswith(".h")],
        deps = deps + ["@sys//:grpcpp", "@sys//:protobuf"],
        **kwargs
    )
