/**
 * The auto-configuration of the Spring Integration lock registry.
 */
@NullMarked
package dev.zklock.integration.autoconfigure;

import org.jspecify.annotations.NullMarked;
