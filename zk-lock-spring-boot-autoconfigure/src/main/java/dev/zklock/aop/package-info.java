/**
 * The advisor and interceptor that lock {@code @DistributedLock} methods, and the
 * checks of their declarations at startup.
 */
@NullMarked
package dev.zklock.aop;

import org.jspecify.annotations.NullMarked;
