/**
 * The sample application: an inventory and orders service that shows every zk-lock feature.
 */
@NullMarked
package dev.zklock.sample;

import org.jspecify.annotations.NullMarked;
