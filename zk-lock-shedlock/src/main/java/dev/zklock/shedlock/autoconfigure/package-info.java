/**
 * The auto-configuration of the ShedLock provider.
 */
@NullMarked
package dev.zklock.shedlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
