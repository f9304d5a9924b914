/**
 * The zk-lock starter has no classes of its own: it brings zk-lock's auto-configuration,
 * the engine, the ShedLock and Spring Integration adapters, Curator, the ZooKeeper client
 * and Spring AOP as dependencies. This package gives its jar, its sources and its
 * Javadoc a module name, {@code dev.zklock.starter}, and a page that says so.
 */
@NullMarked
package dev.zklock.starter;

import org.jspecify.annotations.NullMarked;
