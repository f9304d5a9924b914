package dev.zklock.sample.inventory;

/**
 * The outcome of a stock change.
 *
 * @param applied whether the change was made; false when there was not enough stock
 * @param level the row after the change, or as read when it was not made
 */
public record StockUpdate(boolean applied, StockLevel level) {

}
