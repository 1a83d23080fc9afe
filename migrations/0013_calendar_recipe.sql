-- 0013_calendar_recipe.sql: an unchanged calendar item known without making its text (issue 31). Never
-- edit once shipped.
--
-- Every writing command compares each item of the next `calendar-days` with the folder; making and
-- digesting an item's text was 90 % of a refill with a calendar folder, and grew with `calendar-days`.
-- `recipe` is what the item this row's digest holds is made from (`CalendarFolderText.Item.recipe`: its
-- own fields and a digest of what it shares with the plan), followed by a space and that digest
-- (`boundRecipe`): an item of the plan with the same recipe, while the row's digest is still that one, is
-- as the file holds it. A digest changed by anything that did not also write the recipe (a planner from
-- before this column, still running; a hand edit) leaves a recipe that no longer holds. NULL: compare by
-- the digest (a file read since it was written, or one written before this column).
ALTER TABLE calendar_file ADD COLUMN recipe TEXT;

