/**
 * Monitoring of long lock holds.
 */
@NullMarked
package dev.zklock.monitor;

import org.jspecify.annotations.NullMarked;
