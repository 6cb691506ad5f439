"""Checks channel.py's targets and service config (no server, no grpc module needed)."""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ssimd_client.channel import (  # noqa: E402
    channel_target, may_name_many_servers, service_config)


class ChannelTargetTest(unittest.TestCase):
    def test_single_addresses_and_uris_pass_through(self):
        for target in ("127.0.0.1:50051", "ssimd:50051", "dns:///ssimd.ssimd.svc:50051",
                       "ipv4:10.0.0.1:1,10.0.0.2:2"):
            self.assertEqual(channel_target(target), target)

    def test_comma_lists_become_address_targets(self):
        self.assertEqual(channel_target("127.0.0.1:1, 127.0.0.1:2,"),
                         "ipv4:127.0.0.1:1,127.0.0.1:2")
        self.assertEqual(channel_target("[::1]:1,[::1]:2"), "ipv6:[::1]:1,[::1]:2")

    def test_bad_lists_say_what_to_write(self):
        for text, message in (("a:1,b:2", "dns:///NAME:PORT"), ("1.2.3.4,1.2.3.4:5", "no port"),
                              ("1.2.3.4:0,1.2.3.4:5", "1 to 65535"),
                              ("1.2.3.4:1,[::1]:2", "all IPv4 or all IPv6"), (" ", "empty")):
            with self.assertRaises(ValueError) as caught:
                channel_target(text)
            self.assertIn(message, str(caught.exception))

    def test_only_lists_and_dns_are_balanced(self):
        self.assertTrue(may_name_many_servers("dns:///ssimd:1"))
        self.assertTrue(may_name_many_servers("ipv4:127.0.0.1:1,127.0.0.1:2"))
        self.assertFalse(may_name_many_servers("127.0.0.1:1"))

    def test_service_config_retries_safe_calls_and_balances_on_request(self):
        for balance in (False, True):
            config = json.loads(service_config(balance))
            methods = {n["method"] for n in config["methodConfig"][0]["name"]}
            self.assertIn("ScorePair", methods)
            self.assertIn("ScoreLadder", methods)
            self.assertNotIn("ScoreClip", methods)
            self.assertEqual("loadBalancingConfig" in config, balance)
            self.assertEqual("healthCheckConfig" in config, balance)


if __name__ == "__main__":
    unittest.main()
