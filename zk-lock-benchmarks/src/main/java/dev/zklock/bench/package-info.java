/**
 * The JMH suite that measures zk-lock against Curator by hand and Spring Integration.
 */
@NullMarked
package dev.zklock.bench;

import org.jspecify.annotations.NullMarked;
