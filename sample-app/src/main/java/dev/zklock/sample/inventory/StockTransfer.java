package dev.zklock.sample.inventory;

/**
 * Units moved from one warehouse to another.
 *
 * @param quantity the units moved
 * @param from the source row after the move
 * @param to the target row after the move
 */
public record StockTransfer(int quantity, StockLevel from, StockLevel to) {

}
