/**
 * The health indicator of zk-lock's ZooKeeper connection.
 */
@NullMarked
package dev.zklock.health;

import org.jspecify.annotations.NullMarked;
