-- 0028: an update's change of quota claims (docs/admission.md, "Updates").
--
-- PUT (and an elastic scale) reserves the growth it asks for in the transaction that accepts it:
-- the counters' `reserved` goes up by it and the claim row's `pending` records it. A shrink
-- records a negative `pending` and changes no counter yet. The commit that ends the update moves
-- `pending` into `amount` (UPDATE_COMPLETE: growth from reserved to in_use, a shrink given back)
-- or gives the growth back (UPDATE_FAILED); releasing the deployment gives back both. A row the
-- update adds (a counter the deployment did not claim before) has amount 0 until then.
ALTER TABLE admission_claims ADD COLUMN pending double precision NOT NULL DEFAULT 0;

-- The fair-share history per GPU class as well (docs/admission.md, "GPU classes"): the GPU-hours
-- a group held on a class counter of its own quota are kept under that class ('' is every GPU,
-- and the other resources), so the reader weights each class's hours by
-- workflow.admission_gpu_weights as configured when it reads, as it decays them.
ALTER TABLE fair_share_usage ADD COLUMN gpu_class text NOT NULL DEFAULT '';
ALTER TABLE fair_share_usage DROP CONSTRAINT fair_share_usage_pkey;
ALTER TABLE fair_share_usage ADD PRIMARY KEY (issuer, user_group, resource, gpu_class, day);
