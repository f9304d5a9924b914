package dev.zklock.core;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link MultiKeyTests} against a ZooKeeper 3.5 server (the oldest supported line) in
 * its own JVM. The superclass starts an in-JVM server of the current line first; its
 * client is replaced by one on the 3.5 server before any test runs.
 */
@ExtendWith(OnZooKeeper35.class)
class ZooKeeper35MultiKeyTests extends MultiKeyTests {

}
